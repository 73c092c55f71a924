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

  void PreTokenize(PieceList& pieces, bool /*at_text_start*/) const override {
    CutPieces(pieces.text, pieces.spans, behavior_, invert_,
              [&](std::string_view piece, const auto& emit) { pattern_.ForEachMatch(piece, emit); });
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
