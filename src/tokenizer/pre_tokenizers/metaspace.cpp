// Metaspace (SentencePiece style): spaces become the replacement character (normally U+2581), a replacement is
// prepended per prepend_scheme, and with `split` the text is cut before every replacement character.
#include "../pattern.h"
#include "pre_tokenizer.h"
#include "split_behavior.h"

namespace modelkit::tokenizer {
namespace {

enum class PrependScheme { kAlways, kFirst, kNever };

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  explicit MetaspacePreTokenizer(const JsonNode& config)
      : replacement_(config.StringOr("replacement", "\u2581")), split_(config.BoolOr("split", true)) {
    if (config.Has("prepend_scheme")) {
      const JsonNode scheme = config.Child("prepend_scheme");
      const std::string name = scheme.AsString();
      if (name == "always") {
        scheme_ = PrependScheme::kAlways;
      } else if (name == "first") {
        scheme_ = PrependScheme::kFirst;
      } else if (name == "never") {
        scheme_ = PrependScheme::kNever;
      } else {
        scheme.Fail("unknown prepend_scheme '" + name + "' (expected always, first or never)");
      }
    } else {
      scheme_ = config.BoolOr("add_prefix_space", true) ? PrependScheme::kAlways : PrependScheme::kNever;
    }
  }

  void PreTokenize(PieceList& pieces, bool at_text_start) const override {
    PieceList out;
    out.spans.reserve(pieces.size() * 2);
    std::vector<std::pair<size_t, size_t>> matches;
    std::string text;
    for (size_t i = 0; i < pieces.size(); ++i) {
      text.clear();
      text.reserve(pieces[i].size() + replacement_.size());
      for (const char c : pieces[i]) {
        if (c == ' ') {
          text += replacement_;
        } else {
          text += c;
        }
      }
      const bool prepend =
          scheme_ == PrependScheme::kAlways || (scheme_ == PrependScheme::kFirst && i == 0 && at_text_start);
      if (prepend && text.compare(0, replacement_.size(), replacement_) != 0) text.insert(0, replacement_);
      const size_t base = out.text.size();
      out.text += text;
      if (!split_) {
        out.spans.emplace_back(base, out.text.size());
        continue;
      }
      matches.clear();
      for (size_t pos = text.find(replacement_); pos != std::string::npos;
           pos = text.find(replacement_, pos + replacement_.size())) {
        matches.emplace_back(pos, pos + replacement_.size());
      }
      SplitByMatches(text, base, matches, SplitBehavior::kMergedWithNext, false, out.spans);
    }
    pieces = std::move(out);
  }

 private:
  std::string replacement_;
  bool split_;
  PrependScheme scheme_ = PrependScheme::kAlways;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeMetaspacePreTokenizer(const JsonNode& config) {
  return std::make_unique<MetaspacePreTokenizer>(config);
}

}  // namespace modelkit::tokenizer
