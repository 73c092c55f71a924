// Pre-tokenizer factory and the Sequence pre-tokenizer.
#include "pre_tokenizer.h"

namespace modelkit::tokenizer {
namespace {

class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void PreTokenize(PieceList& pieces, bool at_text_start) const override {
    for (const auto& step : steps_) step->PreTokenize(pieces, at_text_start);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakePreTokenizer(const JsonNode& config) {
  if (config.IsNull()) return nullptr;
  const std::string type = config.Type();
  if (type == "ByteLevel") return MakeByteLevelPreTokenizer(config);
  if (type == "Split") return MakeSplitPreTokenizer(config);
  if (type == "Metaspace") return MakeMetaspacePreTokenizer(config);
  if (type == "Whitespace") return MakeWhitespacePreTokenizer(config);
  if (type == "WhitespaceSplit") return MakeWhitespaceSplitPreTokenizer(config);
  if (type == "Digits") return MakeDigitsPreTokenizer(config);
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (const JsonNode& step : config.Child("pretokenizers").Elements()) {
      if (auto pre_tokenizer = MakePreTokenizer(step)) steps.push_back(std::move(pre_tokenizer));
    }
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  config.Child("type").Fail("unsupported pre-tokenizer type '" + type +
                            "' (supported: ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit, Digits, "
                            "Sequence)");
}

}  // namespace modelkit::tokenizer
