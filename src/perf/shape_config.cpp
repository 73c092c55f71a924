#include "modelkit/perf/shape_config.h"

#include <algorithm>

#include "modelkit/base/error.h"

namespace modelkit::perf {

ShapeConfig ParseShapeConfig(const nlohmann::json& json, std::string_view origin) {
  const std::string where(origin);
  if (!json.is_object()) throw UsageError(where + ": expected a JSON object mapping input names or dim names to sizes");
  ShapeConfig config;
  for (const auto& [key, value] : json.items()) {
    if (value.is_array()) {
      std::vector<int64_t> shape;
      for (size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_number_integer() || value[i].get<int64_t>() <= 0) {
          throw UsageError(where + ": $." + key + "[" + std::to_string(i) + "]: expected a positive integer");
        }
        shape.push_back(value[i].get<int64_t>());
      }
      config.input_shapes[key] = std::move(shape);
    } else if (value.is_number_integer() && !value.is_boolean() && value.get<int64_t>() > 0) {
      config.dim_values[key] = value.get<int64_t>();
    } else {
      throw UsageError(where + ": $." + key + ": expected a positive integer (a dimension) or a list (a full shape)");
    }
  }
  return config;
}

void CheckShapeConfigNames(const ShapeConfig& config, const std::vector<TensorSpec>& inputs, std::string_view origin) {
  const auto is_input = [&](const std::string& name) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const TensorSpec& spec) { return spec.name == name; });
  };
  const auto is_dim_name = [&](const std::string& name) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const TensorSpec& spec) {
      return std::any_of(spec.dims.begin(), spec.dims.end(), [&](const Dim& dim) { return dim.param == name; });
    });
  };
  std::string input_names;
  for (const TensorSpec& spec : inputs) input_names += (input_names.empty() ? "" : ", ") + spec.name;
  for (const auto& [name, shape] : config.input_shapes) {
    if (!is_input(name)) {
      throw UsageError(std::string(origin) + ": $." + name + ": the model has no input '" + name +
                       "' (its inputs: " + input_names + ")");
    }
  }
  for (const auto& [name, value] : config.dim_values) {
    if (!is_dim_name(name)) {
      throw UsageError(std::string(origin) + ": $." + name + ": no input of the model has a dimension named '" + name +
                       "' (give a list to set an input's whole shape)");
    }
  }
}

std::vector<int64_t> ResolveShape(const TensorSpec& spec, const ShapeConfig& config, int64_t batch_size) {
  if (auto it = config.input_shapes.find(spec.name); it != config.input_shapes.end()) return it->second;
  if (!spec.shape_known) return {batch_size};
  std::vector<int64_t> shape;
  for (size_t i = 0; i < spec.dims.size(); ++i) {
    const Dim& dim = spec.dims[i];
    if (dim.value && *dim.value >= 0) {
      shape.push_back(*dim.value);
      continue;
    }
    if (auto it = config.dim_values.find(dim.param); !dim.param.empty() && it != config.dim_values.end()) {
      shape.push_back(it->second);
    } else if (i == 0) {
      shape.push_back(batch_size);
    } else if (i == 1) {
      shape.push_back(128);
    } else if (i == 2 || i == 3) {
      shape.push_back(224);
    } else {
      shape.push_back(128);
    }
  }
  return shape;
}

}  // namespace modelkit::perf
