// The `pattern` member of Split, Replace (normalizer and decoder): {"String": "..."} matches literally,
// {"Regex": "..."} through PCRE2.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "json_node.h"
#include "regex.h"

namespace modelkit::tokenizer {

class Pattern {
 public:
  explicit Pattern(const JsonNode& config);

  // Non-empty, non-overlapping matches, left to right, as byte ranges of `text` (valid UTF-8).
  void ForEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& on_match) const;

  // `text` with every match replaced by `content`.
  std::string ReplaceAll(std::string_view text, std::string_view content) const;

 private:
  std::string literal_;
  std::unique_ptr<Regex> regex_;
};

// True for characters with the Unicode White_Space property (what Rust's char::is_whitespace tests).
bool IsUnicodeWhitespace(char32_t c);

}  // namespace modelkit::tokenizer
