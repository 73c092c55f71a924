// String-level decoders: Fuse (join), Strip (cut a character at the ends), Replace (pattern -> content), Metaspace.
#include "../pattern.h"
#include "decoder.h"

namespace modelkit::tokenizer {
namespace {

class FuseDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>& tokens) const override {
    std::string joined;
    for (const std::string& token : tokens) joined += token;
    tokens.assign(1, std::move(joined));
  }
};

class StripDecoder : public Decoder {
 public:
  explicit StripDecoder(const JsonNode& config)
      : content_(config.String("content")),
        start_(static_cast<size_t>(config.IntOr("start", 0))),
        stop_(static_cast<size_t>(config.IntOr("stop", 0))) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) {
      std::string_view view = token;
      for (size_t i = 0; i < start_ && !content_.empty() && view.starts_with(content_); ++i) {
        view.remove_prefix(content_.size());
      }
      for (size_t i = 0; i < stop_ && !content_.empty() && view.ends_with(content_); ++i) {
        view.remove_suffix(content_.size());
      }
      token = std::string(view);
    }
  }

 private:
  std::string content_;
  size_t start_, stop_;
};

class ReplaceDecoder : public Decoder {
 public:
  explicit ReplaceDecoder(const JsonNode& config)
      : pattern_(config.Child("pattern")), content_(config.String("content")) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) token = pattern_.ReplaceAll(token, content_);
  }

 private:
  Pattern pattern_;
  std::string content_;
};

class MetaspaceDecoder : public Decoder {
 public:
  explicit MetaspaceDecoder(const JsonNode& config) : replacement_(config.StringOr("replacement", "\u2581")) {
    const std::string scheme =
        config.StringOr("prepend_scheme", config.BoolOr("add_prefix_space", true) ? "always" : "never");
    strip_first_space_ = scheme != "never";
  }
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string text;
      const std::string& token = tokens[i];
      for (size_t pos = 0; pos < token.size();) {
        if (token.compare(pos, replacement_.size(), replacement_) == 0) {
          text += ' ';
          pos += replacement_.size();
        } else {
          text += token[pos++];
        }
      }
      if (i == 0 && strip_first_space_ && !text.empty() && text.front() == ' ') text.erase(0, 1);
      tokens[i] = std::move(text);
    }
  }

 private:
  std::string replacement_;
  bool strip_first_space_ = true;
};

}  // namespace

std::unique_ptr<Decoder> MakeFuseDecoder() { return std::make_unique<FuseDecoder>(); }
std::unique_ptr<Decoder> MakeStripDecoder(const JsonNode& config) { return std::make_unique<StripDecoder>(config); }
std::unique_ptr<Decoder> MakeReplaceDecoder(const JsonNode& config) { return std::make_unique<ReplaceDecoder>(config); }
std::unique_ptr<Decoder> MakeMetaspaceDecoder(const JsonNode& config) {
  return std::make_unique<MetaspaceDecoder>(config);
}

}  // namespace modelkit::tokenizer
