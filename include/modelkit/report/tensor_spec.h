// A model's inputs and outputs as benchmarks and reports describe them, independent of ONNX Runtime: element types
// and (partly dynamic) declared shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit::report {

// ONNX tensor element types (values equal ONNX's TensorProto.DataType).
enum class ElementType : int {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBFloat16 = 16,
};

// numpy-style name ("float32", "int64", "bool", "string", ...); "unknown" for others.
std::string_view ElementTypeName(ElementType type);
// Bytes per element; 0 for strings and unknown types.
size_t ElementSize(ElementType type);
// Signed or unsigned integers of any width (not bool).
bool IsIntegerType(ElementType type);

// One dimension: a fixed size, or dynamic (no value) with its symbolic name if the model gives one.
struct Dim {
  std::optional<int64_t> value;
  std::string param;
};

struct TensorSpec {
  std::string name;
  ElementType type = ElementType::kFloat;
  std::vector<Dim> dims;
  bool shape_known = true;  // false when the model declares no shape at all
};

// "[batch, 3, 224, 224]"-style rendering of a declared shape (dynamic dims by name, or "?").
std::string DescribeShape(const TensorSpec& spec);

}  // namespace modelkit::report
