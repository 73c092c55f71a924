// Small edits: Lowercase, Prepend, Strip.
#include <utf8proc.h>

#include "../pattern.h"
#include "../utf8.h"
#include "normalizer.h"

namespace modelkit::tokenizer {
namespace {

class LowercaseNormalizer : public Normalizer {
 public:
  // Simple (one-to-one) Unicode lower-casing; Rust's full mapping differs only for U+0130.
  std::string Normalize(std::string_view text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
      const size_t length = Utf8CharLength(static_cast<unsigned char>(text[pos]));
      const char32_t c = DecodeCodepoint(text, pos);
      AppendUtf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
      pos += length;
    }
    return out;
  }
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  // Hugging Face prepends only to non-empty text.
  std::string Normalize(std::string_view text) const override {
    return text.empty() ? std::string() : prefix_ + std::string(text);
  }

 private:
  std::string prefix_;
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  std::string Normalize(std::string_view text) const override {
    size_t begin = 0, end = text.size();
    if (left_) {
      while (begin < end && IsUnicodeWhitespace(DecodeCodepoint(text, begin))) {
        begin += Utf8CharLength(static_cast<unsigned char>(text[begin]));
      }
    }
    if (right_) {
      while (end > begin) {
        size_t start = end - 1;
        while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
        if (!IsUnicodeWhitespace(DecodeCodepoint(text, start))) break;
        end = start;
      }
    }
    return std::string(text.substr(begin, end - begin));
  }

 private:
  bool left_, right_;
};

}  // namespace

std::unique_ptr<Normalizer> MakeLowercaseNormalizer() { return std::make_unique<LowercaseNormalizer>(); }

std::unique_ptr<Normalizer> MakePrependNormalizer(const JsonNode& config) {
  return std::make_unique<PrependNormalizer>(config.String("prepend"));
}

std::unique_ptr<Normalizer> MakeStripNormalizer(const JsonNode& config) {
  return std::make_unique<StripNormalizer>(config.BoolOr("strip_left", true), config.BoolOr("strip_right", true));
}

}  // namespace modelkit::tokenizer
