#include "utf8.h"

#include <utf8proc.h>

namespace modelkit::tokenizer {

std::optional<size_t> FindInvalidUtf8(std::string_view text) {
  const auto* data = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    if (data[pos] < 0x80) {  // ASCII fast path
      ++pos;
      continue;
    }
    utf8proc_int32_t codepoint = 0;
    const utf8proc_ssize_t n =
        utf8proc_iterate(data + pos, static_cast<utf8proc_ssize_t>(text.size() - pos), &codepoint);
    if (n <= 0) return pos;
    pos += static_cast<size_t>(n);
  }
  return std::nullopt;
}

char32_t DecodeCodepoint(std::string_view text, size_t pos) {
  utf8proc_int32_t codepoint = 0;
  utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                   static_cast<utf8proc_ssize_t>(text.size() - pos), &codepoint);
  return static_cast<char32_t>(codepoint < 0 ? 0xFFFD : codepoint);
}

void AppendUtf8(std::string& out, char32_t codepoint) {
  utf8proc_uint8_t buffer[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(codepoint), buffer);
  out.append(reinterpret_cast<const char*>(buffer), static_cast<size_t>(n));
}

namespace {

// Length of the longest prefix of `bytes[pos...]` that could start a valid sequence (1..3): the "maximal subpart"
// of an ill-formed sequence, which the Unicode Standard and the WHATWG decoder replace by one U+FFFD each.
size_t MaximalSubpart(std::string_view bytes, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  const unsigned char lead = byte(pos);
  size_t need = 0;
  unsigned char lower = 0x80, upper = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) lower = 0xA0;
    if (lead == 0xED) upper = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) lower = 0x90;
    if (lead == 0xF4) upper = 0x8F;
  } else {
    return 1;
  }
  size_t length = 1;
  for (size_t k = 0; k < need && pos + length < bytes.size(); ++k) {
    const unsigned char next = byte(pos + length);
    if (next < lower || next > upper) break;
    lower = 0x80;
    upper = 0xBF;
    ++length;
  }
  return length;
}

}  // namespace

std::string ToValidUtf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t pos = 0;
  while (pos < bytes.size()) {
    const auto rest = bytes.substr(pos);
    const std::optional<size_t> bad = FindInvalidUtf8(rest);
    if (!bad) {
      out.append(rest);
      break;
    }
    out.append(rest.substr(0, *bad));
    out.append(kReplacementCharacter);
    pos += *bad + MaximalSubpart(bytes, pos + *bad);
  }
  return out;
}

}  // namespace modelkit::tokenizer
