// Input tensors held in host memory: synthetic ones made from a TensorSpec, or real ones read from an .npz file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "modelkit/perf/shape_config.h"

namespace modelkit::perf {

struct HostTensor {
  std::string name;
  ElementType type = ElementType::kFloat;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;       // little-endian element bytes (not used for strings)
  std::vector<std::string> strings;  // string tensors only

  size_t ElementCount() const;
};

// A tensor of `shape` for `spec`, filled with deterministic pseudo-random values from `seed`: floating types
// uniform in [0, 1), integer types uniform in {0, 1} (valid as ids, indices and masks), bool random, strings
// "modelkit".
HostTensor MakeSyntheticTensor(const TensorSpec& spec, const std::vector<int64_t>& shape, uint64_t seed);

}  // namespace modelkit::perf
