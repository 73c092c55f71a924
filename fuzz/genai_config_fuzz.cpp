// libFuzzer target: arbitrary bytes as genai_config.json (and as generation_config.json beside it). Parsing either
// succeeds or throws modelkit::Error; a parsed config answers its derived questions without crashing.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "modelkit/base/error.h"
#include "modelkit/generate/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::ordered_json document =
      nlohmann::ordered_json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return 0;
  try {
    modelkit::generate::GenaiConfig config =
        modelkit::generate::ParseGenaiConfig(document, "/fuzz-bundle", "fuzz/genai_config.json");
    config.MaxLength();
    config.IsPipeline();
    modelkit::generate::ApplyGenerationConfig(document, document, "fuzz/generation_config.json", config);
  } catch (const modelkit::Error&) {
  }
  return 0;
}
