// UTF-8 helpers over utf8proc: validation with a precise error position, and stepping through text that was
// already validated.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace modelkit::tokenizer {

// Byte offset of the first invalid UTF-8 sequence, or nullopt when `text` is valid.
std::optional<size_t> FindInvalidUtf8(std::string_view text);

// Length in bytes of the character that starts with `lead` (1 for stray bytes, so loops always advance).
inline size_t Utf8CharLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Code point at `text[pos]` of valid UTF-8 (utf8proc decoding).
char32_t DecodeCodepoint(std::string_view text, size_t pos);

// Appends `codepoint` as UTF-8.
void AppendUtf8(std::string& out, char32_t codepoint);

// UTF-8 of U+FFFD, what lossy decoding puts for each invalid sequence.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// `bytes` with every maximal invalid subsequence replaced by U+FFFD (the WHATWG / Rust from_utf8_lossy rule).
std::string ToValidUtf8Lossy(std::string_view bytes);

}  // namespace modelkit::tokenizer
