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

// Splits `text` given its matches (sorted, non-overlapping byte ranges within it) and appends the non-empty pieces
// to `out` as [begin, end) ranges shifted by `base` (where `text` starts in the caller's buffer). With `invert` the
// matches are what is kept as pieces and the gaps are the delimiters.
void SplitByMatches(std::string_view text, size_t base, const std::vector<std::pair<size_t, size_t>>& matches,
                    SplitBehavior behavior, bool invert, std::vector<std::pair<size_t, size_t>>& out);

// Cuts every piece of `pieces` (a PieceList's spans over `text`) at the matches `for_each_match(piece, emit)` reports
// (emit(begin, end) relative to the piece), with `behavior` and `invert` as SplitByMatches. The text is not copied.
template <typename ForEachMatch>
void CutPieces(std::string_view text, std::vector<std::pair<size_t, size_t>>& spans, SplitBehavior behavior,
               bool invert, const ForEachMatch& for_each_match) {
  std::vector<std::pair<size_t, size_t>> out;
  out.reserve(spans.size() * 2);
  std::vector<std::pair<size_t, size_t>> matches;
  for (const auto& [begin, end] : spans) {
    const std::string_view piece = text.substr(begin, end - begin);
    matches.clear();
    for_each_match(piece, [&](size_t match_begin, size_t match_end) { matches.emplace_back(match_begin, match_end); });
    SplitByMatches(piece, begin, matches, behavior, invert, out);
  }
  spans = std::move(out);
}

}  // namespace modelkit::tokenizer
