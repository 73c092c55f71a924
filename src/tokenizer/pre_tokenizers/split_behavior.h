// How a pre-tokenizer turns pattern matches into pieces: Hugging Face's SplitDelimiterBehavior.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../json_node.h"

namespace modelkit::tokenizer {

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// Reads "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext" or "Contiguous".
SplitBehavior ParseSplitBehavior(const JsonNode& value);

// Splits `text` given its matches (sorted, non-overlapping byte ranges) and appends the non-empty pieces to `out`.
// With `invert` the matches are what is kept as pieces and the gaps are the delimiters.
void SplitByMatches(std::string_view text, const std::vector<std::pair<size_t, size_t>>& matches,
                    SplitBehavior behavior, bool invert, std::vector<std::string>& out);

}  // namespace modelkit::tokenizer
