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

  void PreTokenize(std::vector<std::string>& pieces, bool /*at_text_start*/) const override {
    std::vector<std::string> out;
    std::vector<std::pair<size_t, size_t>> matches;
    for (const std::string& piece : pieces) {
      matches.clear();
      regex_.ForEachMatch(piece, [&](size_t begin, size_t end) { matches.emplace_back(begin, end); });
      SplitByMatches(piece, matches, behavior_, false, out);
    }
    pieces = std::move(out);
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
