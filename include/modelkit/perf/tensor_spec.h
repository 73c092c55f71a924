// Model inputs as the benchmark sees them, independent of ONNX Runtime: element types, (partly dynamic) shapes,
// and the rules that turn a dynamic shape into a concrete one (upstream winml-cli perf §3.6).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::perf {

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

// --shape-config: {"<input name>": [1, 3, 224, 224], "<dim_param>": 64}. A list gives an input's full shape; an
// integer sets every dynamic dimension carrying that symbolic name.
struct ShapeConfig {
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::map<std::string, int64_t> dim_values;
};

// Throws UsageError naming `origin` and the key when the JSON is not an object, a list holds a non-integer or
// non-positive value, or a scalar is not a positive integer.
ShapeConfig ParseShapeConfig(const nlohmann::json& json, std::string_view origin);

// Concrete shape for a synthetic input: the input's full-shape override wins; an unknown shape becomes
// [batch]; each dynamic dimension takes its dim_param override, else batch_size for dim 0, else the positional
// default (dim 1: 128, dims 2 and 3: 224), else 128.
std::vector<int64_t> ResolveShape(const TensorSpec& spec, const ShapeConfig& config, int64_t batch_size);

// "[batch, 3, 224, 224]"-style rendering of a declared shape (dynamic dims by name, or "?").
std::string DescribeShape(const TensorSpec& spec);

}  // namespace modelkit::perf
