// Whitespace (\w+|[^\w\s]+ pieces) and WhitespaceSplit (cut on whitespace, which is removed).
#include "../pattern.h"
#include "../regex.h"
#include "pre_tokenizer.h"
#include "split_behavior.h"

namespace modelkit::tokenizer {
namespace {

class RegexPiecesPreTokenizer : public PreTokenizer {
 public:
  RegexPiecesPreTokenizer(const JsonNode& config, const char* pattern, bool invert)
      : regex_(pattern, config), invert_(invert) {}

  void PreTokenize(PieceList& pieces, bool /*at_text_start*/) const override {
    CutPieces(pieces.text, pieces.spans, SplitBehavior::kRemoved, invert_,
              [&](std::string_view piece, const auto& emit) { regex_.ForEachMatch(piece, emit); });
  }

 private:
  Regex regex_;
  bool invert_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeWhitespacePreTokenizer(const JsonNode& config) {
  return std::make_unique<RegexPiecesPreTokenizer>(config, R"(\w+|[^\w\s]+)", true);
}

std::unique_ptr<PreTokenizer> MakeWhitespaceSplitPreTokenizer(const JsonNode& config) {
  return std::make_unique<RegexPiecesPreTokenizer>(config, R"(\s+)", false);
}

}  // namespace modelkit::tokenizer
