// ByteLevel decoder: characters back to bytes, then lossy UTF-8 (invalid sequences become U+FFFD).
#include "../byte_level_alphabet.h"
#include "../utf8.h"
#include "decoder.h"

namespace modelkit::tokenizer {
namespace {

class ByteLevelDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>& tokens) const override {
    const ByteLevelAlphabet& alphabet = ByteLevelAlphabet::Get();
    std::string bytes;
    std::string token_bytes;
    for (const std::string& token : tokens) {
      // A token with a character outside the table (e.g. an added token like "<｜User｜>") keeps its own bytes.
      token_bytes.clear();
      bool mapped = true;
      for (size_t pos = 0; pos < token.size() && mapped;) {
        const auto byte = alphabet.ByteFor(DecodeCodepoint(token, pos));
        if (byte) {
          token_bytes.push_back(static_cast<char>(*byte));
        } else {
          mapped = false;
        }
        pos += Utf8CharLength(static_cast<unsigned char>(token[pos]));
      }
      bytes += mapped ? token_bytes : token;
    }
    tokens.assign(1, ToValidUtf8Lossy(bytes));
  }
};

}  // namespace

std::unique_ptr<Decoder> MakeByteLevelDecoder() { return std::make_unique<ByteLevelDecoder>(); }

}  // namespace modelkit::tokenizer
