#include "support/tensor_proto.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "modelkit/base/float16.h"

namespace modelkit::test {
namespace {

// Protobuf wire-format cursor over a byte string.
class Wire {
 public:
  explicit Wire(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return at_ >= bytes_.size(); }
  bool ok() const { return ok_; }

  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && at_ < bytes_.size(); shift += 7) {
      const auto byte = static_cast<uint8_t>(bytes_[at_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return value;
    }
    ok_ = false;
    return 0;
  }
  std::string_view Bytes(size_t count) {
    if (count > bytes_.size() - at_) {
      ok_ = false;
      at_ = bytes_.size();
      return {};
    }
    std::string_view piece = bytes_.substr(at_, count);
    at_ += count;
    return piece;
  }
  std::string_view LengthDelimited() { return Bytes(Varint()); }
  void Skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0:
        Varint();
        break;
      case 1:
        Bytes(8);
        break;
      case 2:
        LengthDelimited();
        break;
      case 5:
        Bytes(4);
        break;
      default:
        ok_ = false;
        at_ = bytes_.size();
    }
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
  bool ok_ = true;
};

// Collects a repeated numeric field that may be packed (wire type 2) or not.
template <typename T>
void ReadRepeated(Wire& wire, uint32_t wire_type, std::vector<T>& out) {
  const auto one = [&](Wire& from, uint32_t type) {
    if (type == 0) {
      out.push_back(static_cast<T>(from.Varint()));
    } else {
      const std::string_view raw = from.Bytes(type == 1 ? 8 : 4);
      if (raw.size() == sizeof(T)) {
        T value;
        std::memcpy(&value, raw.data(), sizeof(T));
        out.push_back(value);
      }
    }
  };
  if (wire_type != 2) {
    one(wire, wire_type);
    return;
  }
  Wire packed(wire.LengthDelimited());
  const uint32_t element_wire = sizeof(T) == 4 && std::is_floating_point_v<T> ? 5 : (std::is_same_v<T, double> ? 1 : 0);
  while (!packed.done() && packed.ok()) one(packed, element_wire);
}

size_t ElementSize(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ:
      return 1;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      return 2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64:
      return 8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

template <typename From>
void AppendAs(std::vector<std::byte>& bytes, From value, size_t size) {
  // Little-endian truncation: the low `size` bytes of the value (int32_data holds 8/16-bit values and fp16 bits).
  const auto wide = static_cast<uint64_t>(value);
  for (size_t i = 0; i < size; ++i) bytes.push_back(static_cast<std::byte>((wide >> (8 * i)) & 0xFF));
}

bool IsFloating(ONNXTensorElementDataType type) {
  return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE ||
         type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 ||
         type == ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128;
}

// Element i of a floating-point tensor as double; false for non floating types.
bool FloatingElement(ONNXTensorElementDataType type, const std::byte* data, size_t i, double& out) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64: {
      float value;
      std::memcpy(&value, data + 4 * i, 4);
      out = value;
      return true;
    }
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128:
      std::memcpy(&out, data + 8 * i, 8);
      return true;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: {
      uint16_t bits;
      std::memcpy(&bits, data + 2 * i, 2);
      out = HalfBitsToFloat(bits);
      return true;
    }
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: {
      uint16_t bits;
      std::memcpy(&bits, data + 2 * i, 2);
      out = BFloat16BitsToFloat(bits);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

std::optional<TensorProtoData> ParseTensorProto(const std::string& bytes, std::string* error) {
  TensorProtoData tensor;
  std::vector<float> floats;
  std::vector<int64_t> int32s;  // int32_data, sign-extended varints
  std::vector<int64_t> int64s;
  std::vector<double> doubles;
  std::vector<uint64_t> uint64s;
  std::string_view raw;
  bool has_raw = false;
  Wire wire(bytes);
  while (!wire.done() && wire.ok()) {
    const uint64_t key = wire.Varint();
    const auto field = static_cast<uint32_t>(key >> 3);
    const auto wire_type = static_cast<uint32_t>(key & 7);
    switch (field) {
      case 1:
        ReadRepeated(wire, wire_type, tensor.dims);
        break;
      case 2:
        tensor.type = static_cast<ONNXTensorElementDataType>(wire.Varint());
        break;
      case 4:
        ReadRepeated(wire, wire_type, floats);
        break;
      case 5:
        ReadRepeated(wire, wire_type, int32s);
        break;
      case 6:
        tensor.strings.emplace_back(wire.LengthDelimited());
        break;
      case 7:
        ReadRepeated(wire, wire_type, int64s);
        break;
      case 8:
        tensor.name = std::string(wire.LengthDelimited());
        break;
      case 9:
        raw = wire.LengthDelimited();
        has_raw = true;
        break;
      case 10:
        ReadRepeated(wire, wire_type, doubles);
        break;
      case 11:
        ReadRepeated(wire, wire_type, uint64s);
        break;
      case 13:
        if (error) *error = "external data is not supported";
        return std::nullopt;
      default:
        wire.Skip(wire_type);
    }
  }
  if (!wire.ok()) {
    if (error) *error = "malformed TensorProto";
    return std::nullopt;
  }
  if (tensor.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) return tensor;
  const size_t size = ElementSize(tensor.type);
  if (size == 0) {
    if (error) *error = "unsupported element type " + std::to_string(tensor.type);
    return std::nullopt;
  }
  if (has_raw) {
    const auto* begin = reinterpret_cast<const std::byte*>(raw.data());
    tensor.bytes.assign(begin, begin + raw.size());
  } else if (!floats.empty()) {
    for (float value : floats) AppendAs(tensor.bytes, std::bit_cast<uint32_t>(value), 4);
  } else if (!doubles.empty()) {
    for (double value : doubles) AppendAs(tensor.bytes, std::bit_cast<uint64_t>(value), 8);
  } else if (!int64s.empty()) {
    for (int64_t value : int64s) AppendAs(tensor.bytes, value, 8);
  } else if (!uint64s.empty()) {
    for (uint64_t value : uint64s) AppendAs(tensor.bytes, value, size);
  } else if (!int32s.empty()) {
    for (int64_t value : int32s) AppendAs(tensor.bytes, value, size);
  }
  size_t count = 1;
  for (int64_t dim : tensor.dims) count *= static_cast<size_t>(dim);
  if (tensor.bytes.size() != count * size) {
    if (error)
      *error = "TensorProto holds " + std::to_string(tensor.bytes.size()) + " bytes for " + std::to_string(count) +
               " elements";
    return std::nullopt;
  }
  return tensor;
}

namespace {

std::optional<std::vector<TensorProtoData>> ParseSequence(std::string_view bytes, std::string* error) {
  std::vector<TensorProtoData> tensors;
  Wire wire(bytes);
  while (!wire.done() && wire.ok()) {
    const uint64_t key = wire.Varint();
    const auto field = static_cast<uint32_t>(key >> 3);
    const auto wire_type = static_cast<uint32_t>(key & 7);
    if (field == 2 && wire_type == 0) {
      if (const uint64_t elem_type = wire.Varint(); elem_type != 1 && elem_type != 0) {
        if (error) *error = "sequence of non-tensors";
        return std::nullopt;
      }
    } else if (field == 3 && wire_type == 2) {
      std::optional<TensorProtoData> tensor = ParseTensorProto(std::string(wire.LengthDelimited()), error);
      if (!tensor) return std::nullopt;
      tensors.push_back(std::move(*tensor));
    } else if (field == 1) {
      wire.Skip(wire_type);
    } else {
      if (error) *error = "sequence of non-tensors";
      return std::nullopt;
    }
  }
  if (!wire.ok()) {
    if (error) *error = "malformed SequenceProto";
    return std::nullopt;
  }
  return tensors;
}

}  // namespace

std::optional<ProtoValue> ParseValueProto(const std::string& bytes, ONNXType type, std::string* error) {
  ProtoValue value;
  if (type == ONNX_TYPE_TENSOR) {
    std::optional<TensorProtoData> tensor = ParseTensorProto(bytes, error);
    if (!tensor) return std::nullopt;
    value.tensor = std::move(*tensor);
    return value;
  }
  if (type == ONNX_TYPE_SEQUENCE) {
    std::optional<std::vector<TensorProtoData>> sequence = ParseSequence(bytes, error);
    if (!sequence) return std::nullopt;
    value.kind = ProtoValue::Kind::kSequence;
    value.sequence = std::move(*sequence);
    return value;
  }
  if (type != ONNX_TYPE_OPTIONAL) {
    if (error) *error = "values of ONNX type " + std::to_string(type) + " are not supported";
    return std::nullopt;
  }
  // OptionalProto: 3 = tensor_value, 5 = sequence_value; neither means an empty optional.
  value.kind = ProtoValue::Kind::kNone;
  Wire wire(bytes);
  while (!wire.done() && wire.ok()) {
    const uint64_t key = wire.Varint();
    const auto field = static_cast<uint32_t>(key >> 3);
    const auto wire_type = static_cast<uint32_t>(key & 7);
    if (field == 3 && wire_type == 2) {
      std::optional<TensorProtoData> tensor = ParseTensorProto(std::string(wire.LengthDelimited()), error);
      if (!tensor) return std::nullopt;
      value.kind = ProtoValue::Kind::kTensor;
      value.tensor = std::move(*tensor);
    } else if (field == 5 && wire_type == 2) {
      std::optional<std::vector<TensorProtoData>> sequence = ParseSequence(wire.LengthDelimited(), error);
      if (!sequence) return std::nullopt;
      value.kind = ProtoValue::Kind::kSequence;
      value.sequence = std::move(*sequence);
    } else if (field == 1 || field == 2) {
      wire.Skip(wire_type);
    } else {
      if (error) *error = "optional of a type this reader does not support";
      return std::nullopt;
    }
  }
  if (!wire.ok()) {
    if (error) *error = "malformed OptionalProto";
    return std::nullopt;
  }
  return value;
}

std::optional<TensorProtoData> ReadTensorProto(const std::filesystem::path& file, std::string* error) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot open " + file.string();
    return std::nullopt;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return ParseTensorProto(bytes.str(), error);
}

Ort::Value ToOrtValue(TensorProtoData& tensor) {
  if (tensor.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    Ort::AllocatorWithDefaultOptions allocator;
    Ort::Value value = Ort::Value::CreateTensor(allocator, tensor.dims.data(), tensor.dims.size(), tensor.type);
    std::vector<const char*> pointers;
    for (const std::string& s : tensor.strings) pointers.push_back(s.c_str());
    if (!pointers.empty()) value.FillStringTensor(pointers.data(), pointers.size());
    return value;
  }
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  return Ort::Value::CreateTensor(memory, tensor.bytes.data(), tensor.bytes.size(), tensor.dims.data(),
                                  tensor.dims.size(), tensor.type);
}

std::string CompareTensor(const Ort::Value& actual, const TensorProtoData& expected) {
  if (!actual.IsTensor()) return "not a tensor";
  const auto info = actual.GetTensorTypeAndShapeInfo();
  if (info.GetElementType() != expected.type) {
    return "element type " + std::to_string(info.GetElementType()) + ", expected " + std::to_string(expected.type);
  }
  if (info.GetShape() != expected.dims) return "shape differs";
  const size_t count = info.GetElementCount();
  if (expected.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    for (size_t i = 0; i < count; ++i) {
      if (actual.GetStringTensorElement(i) != expected.strings.at(i)) return "string " + std::to_string(i) + " differs";
    }
    return "";
  }
  const auto* got = static_cast<const std::byte*>(actual.GetTensorRawData());
  const std::byte* want = expected.bytes.data();
  double a = 0;
  double b = 0;
  const size_t values = count * (expected.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 ||
                                         expected.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128
                                     ? 2
                                     : 1);
  if (IsFloating(expected.type)) {
    for (size_t i = 0; i < values; ++i) {
      FloatingElement(expected.type, got, i, a);
      FloatingElement(expected.type, want, i, b);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;
      if (!(std::fabs(a - b) <= 1e-5 + 1e-3 * std::fabs(b))) {
        return "element " + std::to_string(i) + ": " + std::to_string(a) + " vs expected " + std::to_string(b);
      }
    }
    return "";
  }
  if (count > 0 && std::memcmp(got, want, expected.bytes.size()) != 0) return "elements differ";
  return "";
}

Ort::Value ToOrtValue(ProtoValue& value) {
  switch (value.kind) {
    case ProtoValue::Kind::kTensor:
      return ToOrtValue(value.tensor);
    case ProtoValue::Kind::kSequence: {
      std::vector<Ort::Value> elements;
      for (TensorProtoData& tensor : value.sequence) elements.push_back(ToOrtValue(tensor));
      return Ort::Value::CreateSequence(elements);
    }
    case ProtoValue::Kind::kNone:
      break;
  }
  return Ort::Value{nullptr};
}

std::string CompareValue(const Ort::Value& actual, const ProtoValue& expected) {
  if (expected.kind == ProtoValue::Kind::kNone) {
    return actual == nullptr || !actual.HasValue() ? "" : "a value where an empty optional is expected";
  }
  if (actual == nullptr || !actual.HasValue()) return "an empty optional where a value is expected";
  if (expected.kind == ProtoValue::Kind::kTensor) return CompareTensor(actual, expected.tensor);
  if (actual.GetTypeInfo().GetONNXType() != ONNX_TYPE_SEQUENCE) return "not a sequence";
  const size_t count = actual.GetCount();
  if (count != expected.sequence.size()) {
    return "sequence of " + std::to_string(count) + ", expected " + std::to_string(expected.sequence.size());
  }
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < count; ++i) {
    if (std::string problem = CompareTensor(actual.GetValue(static_cast<int>(i), allocator), expected.sequence[i]);
        !problem.empty()) {
      return "sequence element " + std::to_string(i) + ": " + problem;
    }
  }
  return "";
}

}  // namespace modelkit::test
