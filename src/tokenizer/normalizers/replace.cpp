// Replace: every match of a String or Regex pattern becomes `content`.
#include "../pattern.h"
#include "normalizer.h"

namespace modelkit::tokenizer {
namespace {

class ReplaceNormalizer : public Normalizer {
 public:
  explicit ReplaceNormalizer(const JsonNode& config)
      : pattern_(config.Child("pattern")), content_(config.String("content")) {}
  std::string Normalize(std::string_view text) const override { return pattern_.ReplaceAll(text, content_); }

 private:
  Pattern pattern_;
  std::string content_;
};

}  // namespace

std::unique_ptr<Normalizer> MakeReplaceNormalizer(const JsonNode& config) {
  return std::make_unique<ReplaceNormalizer>(config);
}

}  // namespace modelkit::tokenizer
