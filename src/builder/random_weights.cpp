#include "random_weights.h"

#include <cmath>

#include "modelkit/base/error.h"

namespace modelkit::builder {
namespace {

uint64_t Fnv1a(const std::string& text) {
  uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

RandomWeights::RandomWeights(const ModelSpec& spec, uint64_t seed) : seed_(seed) {
  for (const TensorRef& ref : ExpectedTensors(spec)) shapes_[ref.name] = ref.shape;
}

bool RandomWeights::Contains(const std::string& name) const { return shapes_.count(name) != 0; }

std::vector<float> RandomWeights::Load(const std::string& name, const std::vector<int64_t>& shape) const {
  const auto it = shapes_.find(name);
  if (it == shapes_.end() || it->second != shape) {
    throw Error(ExitCode::kInvalidModel, "random weights: no tensor '" + name + "' of the requested shape");
  }
  int64_t count = 1;
  for (const int64_t d : shape) count *= d;
  // Norms near 1 and embeddings of unit scale keep activations O(1) through the layers, so logits differ enough
  // between tokens for comparisons to mean something; linear layers keep the variance of their input.
  float offset = 0.0f, scale = 1.0f;
  if (EndsWith(name, "norm.weight")) {
    offset = 1.0f;
    scale = 0.2f;
  } else if (name != "model.embed_tokens.weight") {
    scale = static_cast<float>(std::sqrt(3.0 / static_cast<double>(shape.back())));
  }
  uint64_t state = seed_ ^ Fnv1a(name);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) {
    const double unit = static_cast<double>(SplitMix64(state) >> 40) / static_cast<double>(1ULL << 24);  // [0, 1)
    v = offset + scale * static_cast<float>(2.0 * unit - 1.0);
  }
  return values;
}

}  // namespace modelkit::builder
