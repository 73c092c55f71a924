// Hand-made tensor descriptions for tests of shapes and reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "modelkit/report/tensor_spec.h"

namespace modelkit::test {

inline report::Dim Fixed(int64_t value) { return report::Dim{value, ""}; }
inline report::Dim Dynamic(std::string param = "") { return report::Dim{std::nullopt, std::move(param)}; }

// A tensor named `name` with declared dims `dims` (shape known), element type `type`.
inline report::TensorSpec Spec(std::string name, std::vector<report::Dim> dims,
                               report::ElementType type = report::ElementType::kFloat) {
  return report::TensorSpec{std::move(name), type, std::move(dims), true};
}

}  // namespace modelkit::test
