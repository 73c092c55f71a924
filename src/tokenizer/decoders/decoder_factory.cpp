// Decoder factory and the Sequence decoder.
#include "decoder.h"

namespace modelkit::tokenizer {
namespace {

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (const auto& step : steps_) step->DecodeChain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

std::unique_ptr<Decoder> MakeDecoder(const JsonNode& config) {
  if (config.IsNull()) return nullptr;
  const std::string type = config.Type();
  if (type == "ByteLevel") return MakeByteLevelDecoder();
  if (type == "Metaspace") return MakeMetaspaceDecoder(config);
  if (type == "ByteFallback") return MakeByteFallbackDecoder();
  if (type == "Fuse") return MakeFuseDecoder();
  if (type == "Strip") return MakeStripDecoder(config);
  if (type == "Replace") return MakeReplaceDecoder(config);
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Decoder>> steps;
    for (const JsonNode& step : config.Child("decoders").Elements()) {
      if (auto decoder = MakeDecoder(step)) steps.push_back(std::move(decoder));
    }
    return std::make_unique<SequenceDecoder>(std::move(steps));
  }
  config.Child("type").Fail("unsupported decoder type '" + type +
                            "' (supported: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence)");
}

}  // namespace modelkit::tokenizer
