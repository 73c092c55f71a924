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

  void PreTokenize(std::vector<std::string>& pieces, bool /*at_text_start*/) const override {
    std::vector<std::string> out;
    std::vector<std::pair<size_t, size_t>> matches;
    for (const std::string& piece : pieces) {
      matches.clear();
      regex_.ForEachMatch(piece, [&](size_t begin, size_t end) { matches.emplace_back(begin, end); });
      SplitByMatches(piece, matches, SplitBehavior::kRemoved, invert_, out);
    }
    pieces = std::move(out);
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
