#include "modelkit/generate/stop_conditions.h"

#include <algorithm>

namespace modelkit::generate {

std::string StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kEos:
      return "eos";
    case StopReason::kMaxLength:
      return "max_length";
    case StopReason::kMaxNewTokens:
      return "max_new_tokens";
    case StopReason::kNone:
      break;
  }
  return "none";
}

bool StopConditions::IsEos(int32_t token) const {
  return std::find(eos_ids.begin(), eos_ids.end(), token) != eos_ids.end();
}

StopReason StopConditions::Check(int32_t token, int64_t total_length, int64_t new_tokens) const {
  if (!ignore_eos && IsEos(token)) return StopReason::kEos;
  if (total_length >= max_length) return StopReason::kMaxLength;
  if (max_new_tokens && new_tokens >= *max_new_tokens) return StopReason::kMaxNewTokens;
  return StopReason::kNone;
}

}  // namespace modelkit::generate
