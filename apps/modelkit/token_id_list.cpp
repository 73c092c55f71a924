#include "token_id_list.h"

#include <cstdint>
#include <exception>
#include <string>

#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"

namespace modelkit::app {

std::vector<int32_t> ParseTokenIdList(std::string_view text, std::string_view flag) {
  std::vector<int32_t> ids;
  for (const std::string& item : Split(text, ',')) {
    const std::string trimmed = Trim(item);
    size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(trimmed, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (trimmed.empty() || used != trimmed.size() || value < 0 || value > INT32_MAX) {
      throw UsageError(std::string(flag) + " expects comma-separated token ids like 1,2,3; '" + trimmed +
                       "' is not one");
    }
    ids.push_back(static_cast<int32_t>(value));
  }
  return ids;
}

std::vector<int64_t> ParseCountList(std::string_view text, std::string_view flag, int64_t min, int64_t max) {
  std::vector<int64_t> counts;
  for (const std::string& item : Split(text, ',')) {
    const std::string trimmed = Trim(item);
    size_t used = 0;
    long long value = min - 1;
    try {
      value = std::stoll(trimmed, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (trimmed.empty() || used != trimmed.size() || value < min || value > max) {
      throw UsageError(std::string(flag) + " expects comma-separated whole numbers from " + std::to_string(min) +
                       " to " + std::to_string(max) + " like 128,512; '" + trimmed + "' is not one");
    }
    counts.push_back(value);
  }
  return counts;
}

}  // namespace modelkit::app
