#include "byte_level_alphabet.h"

#include "utf8.h"

namespace modelkit::tokenizer {

ByteLevelAlphabet::ByteLevelAlphabet() {
  bytes_.fill(-1);
  // Printable Latin-1 bytes stand for themselves; the other 68 are shifted to U+0100 and up, in byte order.
  const auto printable = [](int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; };
  int shifted = 0;
  for (int b = 0; b < 256; ++b) {
    const char32_t c = printable(b) ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + shifted++);
    AppendUtf8(chars_[b], c);
    bytes_[c] = static_cast<int16_t>(b);
    utf8_length_[b] = static_cast<uint8_t>(chars_[b].size());
    for (size_t i = 0; i < chars_[b].size(); ++i) utf8_[b][i] = chars_[b][i];
  }
}

const ByteLevelAlphabet& ByteLevelAlphabet::Get() {
  static const ByteLevelAlphabet alphabet;
  return alphabet;
}

std::optional<uint8_t> ByteLevelAlphabet::ByteFor(char32_t c) const {
  if (c >= bytes_.size() || bytes_[c] < 0) return std::nullopt;
  return static_cast<uint8_t>(bytes_[c]);
}

void ByteLevelAlphabet::Encode(std::string_view text, std::string& out) const {
  // Hot in every byte-level encode: write into a buffer sized for the worst case, then trim.
  const size_t start = out.size();
  out.resize(start + text.size() * 2);
  char* cursor = out.data() + start;
  for (const char c : text) {
    const auto byte = static_cast<uint8_t>(c);
    cursor[0] = utf8_[byte][0];
    cursor[1] = utf8_[byte][1];
    cursor += utf8_length_[byte];
  }
  out.resize(static_cast<size_t>(cursor - out.data()));
}

}  // namespace modelkit::tokenizer
