// ByteFallback decoder: runs of <0xXX> tokens become the text of their bytes; an invalid run becomes one U+FFFD per
// byte (Hugging Face's rule).
#include "../utf8.h"
#include "decoder.h"

namespace modelkit::tokenizer {
namespace {

std::optional<char> ParseByteToken(const std::string& token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return std::nullopt;
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int high = hex(token[3]), low = hex(token[4]);
  if (high < 0 || low < 0) return std::nullopt;
  return static_cast<char>(high * 16 + low);
}

class ByteFallbackDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string pending;
    size_t pending_count = 0;
    const auto flush = [&] {
      if (pending_count == 0) return;
      if (FindInvalidUtf8(pending)) {
        for (size_t i = 0; i < pending_count; ++i) out.emplace_back(kReplacementCharacter);
      } else {
        out.push_back(pending);
      }
      pending.clear();
      pending_count = 0;
    };
    for (std::string& token : tokens) {
      if (const auto byte = ParseByteToken(token)) {
        pending.push_back(*byte);
        ++pending_count;
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
  }
};

}  // namespace

std::unique_ptr<Decoder> MakeByteFallbackDecoder() { return std::make_unique<ByteFallbackDecoder>(); }

}  // namespace modelkit::tokenizer
