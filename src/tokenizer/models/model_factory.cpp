// Model factory.
#include "model.h"

namespace modelkit::tokenizer {

std::unique_ptr<Model> MakeModel(const JsonNode& config) {
  // Old files omit "type"; Hugging Face then recognises BPE by its merges.
  const std::string type = config.Has("type") ? config.Type() : (config.Has("merges") ? "BPE" : "");
  if (type == "BPE") return MakeBpeModel(config);
  if (!config.Has("type")) config.Fail("model has no 'type' and is not recognisable as BPE");
  config.Child("type").Fail("unsupported model type '" + type + "' (supported: BPE)");
}

}  // namespace modelkit::tokenizer
