// When generation ends: an end-of-sequence token (unless ignored), the max-length limit (prompt + generated, never
// beyond the KV capacity), or the max-new-tokens limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelkit::generate {

enum class StopReason { kNone, kEos, kMaxLength, kMaxNewTokens };

// "eos", "max_length", "max_new_tokens" ("none" while running).
std::string StopReasonName(StopReason reason);

struct StopConditions {
  std::vector<int32_t> eos_ids;
  bool ignore_eos = false;
  int64_t max_length = 0;                 // prompt + generated tokens
  std::optional<int64_t> max_new_tokens;  // unset: only max_length limits
  int64_t min_length = 0;                 // eos is not chosen before the sequence has this many tokens

  bool IsEos(int32_t token) const;
  // The reason to stop after `token` made the sequence `total_length` long with `new_tokens` generated.
  StopReason Check(int32_t token, int64_t total_length, int64_t new_tokens) const;
};

}  // namespace modelkit::generate
