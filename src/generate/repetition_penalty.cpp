#include "repetition_penalty.h"

#include <vector>

namespace modelkit::generate {

void ApplyRepetitionPenalty(std::span<float> logits, std::span<const int32_t> tokens, double penalty) {
  if (penalty == 1.0) return;
  std::vector<bool> seen(logits.size(), false);
  for (const int32_t token : tokens) {
    if (token < 0 || static_cast<size_t>(token) >= logits.size() || seen[static_cast<size_t>(token)]) continue;
    seen[static_cast<size_t>(token)] = true;
    float& value = logits[static_cast<size_t>(token)];
    value = value > 0 ? static_cast<float>(value / penalty) : static_cast<float>(value * penalty);
  }
}

}  // namespace modelkit::generate
