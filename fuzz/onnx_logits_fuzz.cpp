// libFuzzer target: arbitrary bytes as a stage's model.onnx, given to the last-position logits rewrite that runs on
// every bundle modelkit loads. It either declines (nullopt), rewrites, or throws modelkit::Error; a rewrite is a
// well-formed message that the rewrite then declines (its logits are already one position long).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "generate/last_position_logits.h"
#include "modelkit/base/error.h"
#include "modelkit/base/protobuf_fields.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view model(reinterpret_cast<const char*>(data), size);
  std::optional<std::string> rewritten;
  try {
    rewritten = modelkit::generate::SliceLogitsToLastPosition(model, "logits");
  } catch (const modelkit::Error&) {
    return 0;
  }
  if (!rewritten) return 0;
  // Not caught: a rewrite that is not a well-formed message, or that is rewritten again, is a finding.
  modelkit::ParseProtobuf(*rewritten, "rewritten model");
  if (modelkit::generate::SliceLogitsToLastPosition(*rewritten, "logits")) std::abort();
  return 0;
}
