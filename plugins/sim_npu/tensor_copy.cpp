#include "tensor_copy.h"

#include <cstring>
#include <string>
#include <vector>

namespace sim_npu {

void CopyTensorData(const OrtValue* source, OrtValue* target) {
  const Ort::ConstValue from{source};
  Ort::UnownedValue to{target};
  const auto info = from.GetTensorTypeAndShapeInfo();
  if (info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    const size_t count = info.GetElementCount();
    if (count == 0) return;
    std::vector<size_t> offsets(count);
    std::string buffer(from.GetStringTensorDataLength(), '\0');
    from.GetStringTensorContent(buffer.data(), buffer.size(), offsets.data(), offsets.size());
    std::vector<std::string> strings(count);
    for (size_t i = 0; i < count; ++i) {
      const size_t end = i + 1 < count ? offsets[i + 1] : buffer.size();
      strings[i] = buffer.substr(offsets[i], end - offsets[i]);
    }
    std::vector<const char*> pointers;
    for (const std::string& s : strings) pointers.push_back(s.c_str());
    to.FillStringTensor(pointers.data(), pointers.size());
    return;
  }
  const size_t bytes = from.GetTensorSizeInBytes();
  if (bytes > 0) std::memcpy(to.GetTensorMutableRawData(), from.GetTensorRawData(), bytes);
}

Ort::Value CloneTensor(const OrtValue* source) {
  const auto info = Ort::ConstValue{source}.GetTensorTypeAndShapeInfo();
  const std::vector<int64_t> shape = info.GetShape();
  Ort::AllocatorWithDefaultOptions allocator;
  Ort::Value copy = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), info.GetElementType());
  CopyTensorData(source, copy);
  return copy;
}

}  // namespace sim_npu
