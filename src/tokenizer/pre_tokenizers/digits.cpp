// Digits: numbers isolated from the rest, each digit alone with individual_digits.
#include "../regex.h"
#include "pre_tokenizer.h"
#include "split_behavior.h"

namespace modelkit::tokenizer {
namespace {

class DigitsPreTokenizer : public PreTokenizer {
 public:
  explicit DigitsPreTokenizer(const JsonNode& config)
      : regex_(R"(\p{N})", config),
        behavior_(config.BoolOr("individual_digits", false) ? SplitBehavior::kIsolated : SplitBehavior::kContiguous) {}

  void PreTokenize(PieceList& pieces, bool /*at_text_start*/) const override {
    CutPieces(pieces.text, pieces.spans, behavior_, false,
              [&](std::string_view piece, const auto& emit) { regex_.ForEachMatch(piece, emit); });
  }

 private:
  Regex regex_;
  SplitBehavior behavior_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeDigitsPreTokenizer(const JsonNode& config) {
  return std::make_unique<DigitsPreTokenizer>(config);
}

}  // namespace modelkit::tokenizer
