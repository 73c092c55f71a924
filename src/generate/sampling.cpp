#include "modelkit/generate/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace modelkit::generate {

bool IsGreedy(const SamplingOptions& options) {
  return !options.do_sample || options.top_k == 1 || options.temperature == 0.0;
}

int32_t ArgMax(std::span<const float> logits) {
  // Two passes that the compiler can vectorise (eight independent maxima, then the first index holding the
  // maximum) instead of max_element's dependent compare-and-track loop: a 152k vocabulary is read on every step.
  constexpr size_t kLanes = 8;
  const size_t size = logits.size();
  const float* data = logits.data();
  float lanes[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lanes[l] = data[0];
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (size_t l = 0; l < kLanes; ++l) lanes[l] = data[i + l] > lanes[l] ? data[i + l] : lanes[l];
  }
  float best = lanes[0];
  for (size_t l = 1; l < kLanes; ++l) best = lanes[l] > best ? lanes[l] : best;
  for (; i < size; ++i) best = data[i] > best ? data[i] : best;
  for (size_t j = 0; j < size; ++j) {
    if (data[j] == best) return static_cast<int32_t>(j);
  }
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());  // NaNs only
}

Sampler::Sampler(SamplingOptions options, uint64_t seed) : options_(options), rng_(seed) {}

int32_t Sampler::Pick(std::span<const float> logits) {
  if (IsGreedy(options_)) return ArgMax(logits);
  const int32_t vocab = static_cast<int32_t>(logits.size());
  order_.resize(logits.size());
  std::iota(order_.begin(), order_.end(), 0);
  // Candidates by descending logit, ties by index, so the result does not depend on the sort's stability.
  const auto better = [&](int32_t a, int32_t b) {
    return logits[static_cast<size_t>(a)] > logits[static_cast<size_t>(b)] ||
           (logits[static_cast<size_t>(a)] == logits[static_cast<size_t>(b)] && a < b);
  };
  int32_t keep = vocab;
  if (options_.top_k > 0 && options_.top_k < vocab) {
    keep = options_.top_k;
    std::partial_sort(order_.begin(), order_.begin() + keep, order_.end(), better);
  } else {
    std::sort(order_.begin(), order_.end(), better);
  }
  order_.resize(static_cast<size_t>(keep));
  // Softmax of logits / temperature over the candidates.
  probs_.resize(order_.size());
  const double top = logits[static_cast<size_t>(order_.front())] / options_.temperature;
  double sum = 0;
  for (size_t i = 0; i < order_.size(); ++i) {
    probs_[i] = std::exp(logits[static_cast<size_t>(order_[i])] / options_.temperature - top);
    sum += probs_[i];
  }
  // Nucleus: the smallest prefix whose probability reaches top_p (always at least one token).
  size_t count = probs_.size();
  if (options_.top_p < 1.0) {
    double cumulative = 0;
    for (size_t i = 0; i < probs_.size(); ++i) {
      cumulative += probs_[i] / sum;
      if (cumulative >= options_.top_p) {
        count = i + 1;
        break;
      }
    }
  }
  double mass = 0;
  for (size_t i = 0; i < count; ++i) mass += probs_[i];
  const double draw = std::uniform_real_distribution<double>(0.0, mass)(rng_);
  double cumulative = 0;
  for (size_t i = 0; i < count; ++i) {
    cumulative += probs_[i];
    if (draw < cumulative) return order_[i];
  }
  return order_[count - 1];
}

}  // namespace modelkit::generate
