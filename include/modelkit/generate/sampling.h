// Choosing the next token from logits: greedy (first maximal index) or sampling with temperature, top-k and top-p
// from a seeded generator, so the same seed gives the same tokens.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace modelkit::generate {

struct SamplingOptions {
  bool do_sample = false;
  double temperature = 1.0;
  int top_k = 50;      // <= 0: no top-k limit
  double top_p = 1.0;  // 1: no nucleus limit
};

// Greedy whenever do_sample is false, top_k is 1 or temperature is 0, as in onnxruntime-genai.
bool IsGreedy(const SamplingOptions& options);

// The first index of the largest value. `logits` must not be empty.
int32_t ArgMax(std::span<const float> logits);

class Sampler {
 public:
  Sampler(SamplingOptions options, uint64_t seed);

  // Picks a token from `logits` (unnormalised).
  int32_t Pick(std::span<const float> logits);

  const SamplingOptions& options() const { return options_; }

 private:
  SamplingOptions options_;
  std::mt19937_64 rng_;
  std::vector<int32_t> order_;  // scratch: candidate ids
  std::vector<double> probs_;   // scratch: their probabilities
};

}  // namespace modelkit::generate
