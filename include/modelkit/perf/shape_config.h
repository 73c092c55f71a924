// --shape-config and the rules that turn a model input's declared (partly dynamic) shape into the concrete shape
// of a synthetic input, as winml-cli's perf does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/report/tensor_spec.h"

namespace modelkit::perf {

// Tensor descriptions are the report's vocabulary; the benchmark code names them unqualified.
using report::Dim;
using report::ElementSize;
using report::ElementType;
using report::ElementTypeName;
using report::TensorSpec;

// --shape-config: {"<input name>": [1, 3, 224, 224], "<dim_param>": 64}. A list gives an input's full shape; an
// integer sets every dynamic dimension carrying that symbolic name.
struct ShapeConfig {
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::map<std::string, int64_t> dim_values;
};

// Throws UsageError naming `origin` and the key when the JSON is not an object, a list holds a non-integer or
// non-positive value, or a scalar is not a positive integer.
ShapeConfig ParseShapeConfig(const nlohmann::json& json, std::string_view origin);

// Throws UsageError naming `origin` and the key when a list names no input of the model or a scalar names no
// dimension of any input: a typo would otherwise be ignored and the run would measure other shapes than asked.
void CheckShapeConfigNames(const ShapeConfig& config, const std::vector<TensorSpec>& inputs, std::string_view origin);

// Concrete shape for a synthetic input: the input's full-shape override wins; an unknown shape becomes
// [batch]; each dynamic dimension takes its dim_param override, else batch_size for dim 0, else the positional
// default (dim 1: 128, dims 2 and 3: 224), else 128.
std::vector<int64_t> ResolveShape(const TensorSpec& spec, const ShapeConfig& config, int64_t batch_size);

}  // namespace modelkit::perf
