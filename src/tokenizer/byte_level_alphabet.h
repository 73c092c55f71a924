// GPT-2's reversible byte <-> printable character table, shared by the ByteLevel pre-tokenizer and decoder.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelkit::tokenizer {

class ByteLevelAlphabet {
 public:
  static const ByteLevelAlphabet& Get();

  // UTF-8 of the character standing for `byte`.
  std::string_view CharFor(uint8_t byte) const { return chars_[byte]; }
  // The byte a character stands for, or nullopt for characters outside the table.
  std::optional<uint8_t> ByteFor(char32_t c) const;

  // Every byte of `text` mapped to its character.
  void Encode(std::string_view text, std::string& out) const;

 private:
  ByteLevelAlphabet();
  std::array<std::string, 256> chars_;
  std::array<std::array<char, 2>, 256> utf8_;  // the same characters as raw bytes (all are 1 or 2 bytes long)
  std::array<uint8_t, 256> utf8_length_;
  std::array<int16_t, 324> bytes_;  // indexed by code point; -1 when not in the table
};

}  // namespace modelkit::tokenizer
