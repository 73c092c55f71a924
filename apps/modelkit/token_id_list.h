// Token ids given on the command line (--prompt-ids, --decode).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace modelkit::app {

// Parses comma-separated token ids ("1, 2,3": whitespace around each id is ignored). Throws UsageError naming
// `flag` and the offending item when an item is empty, not a whole number, negative or above INT32_MAX.
std::vector<int32_t> ParseTokenIdList(std::string_view text, std::string_view flag);

}  // namespace modelkit::app
