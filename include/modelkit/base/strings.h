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

// `text` with every non-overlapping occurrence of `from` (non-empty), left to right, replaced by `to`.
std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to);

}  // namespace modelkit
