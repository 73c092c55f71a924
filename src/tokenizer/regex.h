// A compiled PCRE2 pattern (UTF + UCP, JIT when available) for the pre-tokenizers' and normalizers' regexes.
// Hugging Face writes these patterns for Oniguruma/Rust regex; PCRE2 understands the same syntax (\p{L},
// (?i:...), look-ahead) where RE2 does not.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace modelkit::tokenizer {

class JsonNode;

class Regex {
 public:
  // Compiles `pattern`; a pattern PCRE2 rejects fails through `where` (names file and JSON path).
  Regex(const std::string& pattern, const JsonNode& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls `on_match(begin, end)` for every non-empty, non-overlapping match, left to right. `text` must be valid
  // UTF-8 (checked once by the caller: matching runs with PCRE2_NO_UTF_CHECK).
  void ForEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& on_match) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace modelkit::tokenizer
