// Random weights for a ModelSpec: every tensor of ExpectedTensors, deterministic for (seed, tensor name) and
// independent of the order tensors are asked for. Linear weights are uniform with unit-variance-preserving scale,
// norm weights near 1, embeddings uniform in [-1, 1].
#pragma once

#include <cstdint>
#include <map>

#include "modelkit/builder/model_spec.h"
#include "weight_source.h"

namespace modelkit::builder {

class RandomWeights : public WeightSource {
 public:
  RandomWeights(const ModelSpec& spec, uint64_t seed);

  bool Contains(const std::string& name) const override;
  std::vector<float> Load(const std::string& name, const std::vector<int64_t>& shape) const override;

 private:
  uint64_t seed_;
  std::map<std::string, std::vector<int64_t>> shapes_;
};

}  // namespace modelkit::builder
