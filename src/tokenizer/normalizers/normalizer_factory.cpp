// Normalizer factory and the Sequence normalizer.
#include <vector>

#include "normalizer.h"

namespace modelkit::tokenizer {
namespace {

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  std::string Normalize(std::string_view text) const override {
    std::string current(text);
    for (const auto& step : steps_) current = step->Normalize(current);
    return current;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> MakeNormalizer(const JsonNode& config) {
  if (config.IsNull()) return nullptr;
  const std::string type = config.Type();
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") return MakeUnicodeNormalizer(config, type);
  if (type == "Replace") return MakeReplaceNormalizer(config);
  if (type == "Lowercase") return MakeLowercaseNormalizer();
  if (type == "Prepend") return MakePrependNormalizer(config);
  if (type == "Strip") return MakeStripNormalizer(config);
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (const JsonNode& step : config.Child("normalizers").Elements()) {
      if (auto normalizer = MakeNormalizer(step)) steps.push_back(std::move(normalizer));
    }
    return std::make_unique<SequenceNormalizer>(std::move(steps));
  }
  config.Child("type").Fail("unsupported normalizer type '" + type +
                            "' (supported: NFC, NFD, NFKC, NFKD, Lowercase, Replace, Prepend, Strip, Sequence)");
}

}  // namespace modelkit::tokenizer
