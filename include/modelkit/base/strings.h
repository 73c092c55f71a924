// Small string helpers shared by every module (ASCII case folding, splitting, joining).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace modelkit {

// ASCII lower-case copy; bytes outside A-Z are kept as they are.
std::string ToLower(std::string_view text);

// ASCII case-insensitive equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Splits on every occurrence of `separator`; empty pieces are kept ("a::b" -> {"a", "", "b"}).
std::vector<std::string> Split(std::string_view text, char separator);

// Joins with `separator` between the pieces.
std::string Join(const std::vector<std::string>& pieces, std::string_view separator);

// Copy without leading and trailing ASCII whitespace.
std::string Trim(std::string_view text);

// The candidate a mistyped `word` most likely meant: the nearest by edit distance (ASCII case-insensitive), when at
// most 2 edits and at most a third of the word's length (rounded up) away ("cpuu" -> "cpu", "--iteration" ->
// "--iterations"); empty when nothing is that close. Ties go to the earlier candidate.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'cpu'? Expected one of" when ClosestMatch finds a candidate, else "; expected one of": the joint
// between an error's "unknown X 'cpuu'" and its list of what is known.
std::string DidYouMeanThenExpected(std::string_view word, const std::vector<std::string>& candidates);

// `text` with every non-overlapping occurrence of `from` (non-empty), left to right, replaced by `to`.
std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to);

}  // namespace modelkit
