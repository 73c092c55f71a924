#include "split_behavior.h"

#include <algorithm>

namespace modelkit::tokenizer {

SplitBehavior ParseSplitBehavior(const JsonNode& value) {
  const std::string name = value.AsString();
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  value.Fail("unknown split behavior '" + name +
             "' (expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous)");
}

void SplitByMatches(std::string_view text, size_t base, const std::vector<std::pair<size_t, size_t>>& matches,
                    SplitBehavior behavior, bool invert, std::vector<std::pair<size_t, size_t>>& out) {
  struct Span {
    size_t begin, end;
    bool is_match;
  };
  // The whole text as alternating gaps and matches (Hugging Face's find_matches).
  std::vector<Span> spans;
  spans.reserve(matches.size() * 2 + 1);
  size_t previous = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > previous) spans.push_back({previous, begin, false});
    spans.push_back({begin, end, true});
    previous = end;
  }
  if (previous < text.size()) spans.push_back({previous, text.size(), false});
  if (spans.empty()) spans.push_back({0, 0, false});
  if (invert) {
    for (Span& span : spans) span.is_match = !span.is_match;
  }

  std::vector<std::pair<size_t, size_t>> pieces;
  pieces.reserve(spans.size());
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const Span& span : spans) {
        if (!span.is_match) pieces.emplace_back(span.begin, span.end);
      }
      break;
    case SplitBehavior::kIsolated:
      for (const Span& span : spans) pieces.emplace_back(span.begin, span.end);
      break;
    case SplitBehavior::kMergedWithPrevious:
      for (const Span& span : spans) {
        if (span.is_match && !previous_match && !pieces.empty()) {
          pieces.back().second = span.end;
        } else {
          pieces.emplace_back(span.begin, span.end);
        }
        previous_match = span.is_match;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !pieces.empty()) {
          pieces.back().first = it->begin;
        } else {
          pieces.emplace_back(it->begin, it->end);
        }
        previous_match = it->is_match;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
    case SplitBehavior::kContiguous:
      for (size_t i = 0; i < spans.size(); ++i) {
        if (i > 0 && spans[i].is_match == previous_match) {
          pieces.back().second = spans[i].end;
        } else {
          pieces.emplace_back(spans[i].begin, spans[i].end);
        }
        previous_match = spans[i].is_match;
      }
      break;
  }
  for (const auto& [begin, end] : pieces) {
    if (end > begin) out.emplace_back(base + begin, base + end);
  }
}

}  // namespace modelkit::tokenizer
