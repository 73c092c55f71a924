#include "modelkit/report/tensor_spec.h"

namespace modelkit::report {

std::string_view ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFloat:
      return "float32";
    case ElementType::kUint8:
      return "uint8";
    case ElementType::kInt8:
      return "int8";
    case ElementType::kUint16:
      return "uint16";
    case ElementType::kInt16:
      return "int16";
    case ElementType::kInt32:
      return "int32";
    case ElementType::kInt64:
      return "int64";
    case ElementType::kString:
      return "string";
    case ElementType::kBool:
      return "bool";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kDouble:
      return "float64";
    case ElementType::kUint32:
      return "uint32";
    case ElementType::kUint64:
      return "uint64";
    case ElementType::kBFloat16:
      return "bfloat16";
    case ElementType::kUndefined:
      break;
  }
  return "unknown";
}

bool IsIntegerType(ElementType type) {
  switch (type) {
    case ElementType::kInt8:
    case ElementType::kUint8:
    case ElementType::kInt16:
    case ElementType::kUint16:
    case ElementType::kInt32:
    case ElementType::kUint32:
    case ElementType::kInt64:
    case ElementType::kUint64:
      return true;
    default:
      return false;
  }
}

size_t ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kBool:
    case ElementType::kUint8:
    case ElementType::kInt8:
      return 1;
    case ElementType::kUint16:
    case ElementType::kInt16:
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      return 2;
    case ElementType::kFloat:
    case ElementType::kInt32:
    case ElementType::kUint32:
      return 4;
    case ElementType::kInt64:
    case ElementType::kUint64:
    case ElementType::kDouble:
      return 8;
    case ElementType::kString:
    case ElementType::kUndefined:
      break;
  }
  return 0;
}

std::string DescribeShape(const TensorSpec& spec) {
  if (!spec.shape_known) return "?";
  std::string out = "[";
  for (size_t i = 0; i < spec.dims.size(); ++i) {
    if (i > 0) out += ", ";
    const Dim& dim = spec.dims[i];
    out += (dim.value && *dim.value >= 0) ? std::to_string(*dim.value) : (dim.param.empty() ? "?" : dim.param);
  }
  return out + "]";
}

}  // namespace modelkit::report
