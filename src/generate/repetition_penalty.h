// The CTRL / Hugging Face repetition penalty: logits of tokens already in the sequence are divided by `penalty`
// when positive and multiplied by it when negative.
#pragma once

#include <cstdint>
#include <span>

namespace modelkit::generate {

// Applies `penalty` (1 = no change) in place to `logits` for each distinct id of `tokens` inside the vocabulary.
void ApplyRepetitionPenalty(std::span<float> logits, std::span<const int32_t> tokens, double penalty);

}  // namespace modelkit::generate
