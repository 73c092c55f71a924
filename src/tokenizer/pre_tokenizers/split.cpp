// Split: cut on a String or Regex pattern with a delimiter behavior (the GPT-2 / Llama-3 / Qwen regexes live here).
#include "../pattern.h"
#include "pre_tokenizer.h"
#include "split_behavior.h"

namespace modelkit::tokenizer {
namespace {

class SplitPreTokenizer : public PreTokenizer {
 public:
  explicit SplitPreTokenizer(const JsonNode& config)
      : pattern_(config.Child("pattern")),
        behavior_(ParseSplitBehavior(config.Child("behavior"))),
        invert_(config.BoolOr("invert", false)) {}

  void PreTokenize(std::vector<std::string>& pieces, bool /*at_text_start*/) const override {
    std::vector<std::string> out;
    out.reserve(pieces.size() * 2);
    std::vector<std::pair<size_t, size_t>> matches;
    for (const std::string& piece : pieces) {
      matches.clear();
      pattern_.ForEachMatch(piece, [&](size_t begin, size_t end) { matches.emplace_back(begin, end); });
      SplitByMatches(piece, matches, behavior_, invert_, out);
    }
    pieces = std::move(out);
  }

 private:
  Pattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeSplitPreTokenizer(const JsonNode& config) {
  return std::make_unique<SplitPreTokenizer>(config);
}

}  // namespace modelkit::tokenizer
