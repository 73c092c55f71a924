// Lists of numbers given on the command line: token ids (--prompt-ids, --decode) and counts (--prompt-tokens).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace modelkit::app {

// Parses comma-separated token ids ("1, 2,3": whitespace around each id is ignored). Throws UsageError naming
// `flag` and the offending item when an item is empty, not a whole number, negative or above INT32_MAX.
std::vector<int32_t> ParseTokenIdList(std::string_view text, std::string_view flag);

// Parses comma-separated counts ("128,512"), each within [min, max]. Throws UsageError naming `flag`, the offending
// item and the range.
std::vector<int64_t> ParseCountList(std::string_view text, std::string_view flag, int64_t min, int64_t max);

}  // namespace modelkit::app
