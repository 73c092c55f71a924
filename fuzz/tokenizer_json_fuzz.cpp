// libFuzzer target: arbitrary bytes as tokenizer.json. Loading either succeeds or throws modelkit::Error; a loaded
// tokenizer encodes and decodes a fixed text without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "modelkit/base/error.h"
#include "modelkit/tokenizer/streaming_decoder.h"
#include "modelkit/tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  try {
    const auto tokenizer = modelkit::tokenizer::Tokenizer::FromJson(json, "", "fuzz/tokenizer.json");
    const auto ids = tokenizer.Encode("Hello wörld 中文 😀 <s>\n\n  x", true);
    tokenizer.Decode(ids);
    modelkit::tokenizer::StreamingDecoder stream(tokenizer);
    for (const int32_t id : ids) stream.Step(id);
    stream.Flush();
  } catch (const modelkit::Error&) {
  }
  return 0;
}
