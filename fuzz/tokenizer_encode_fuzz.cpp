// libFuzzer target: arbitrary bytes as text for a real tokenizer (MODELKIT_FUZZ_TOKENIZER, default the qwen3
// directory fetched by scripts/fetch_test_tokenizers.sh). Invalid UTF-8 must throw modelkit::Error; valid text must
// encode, decode and stream-decode to the same text as Decode.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "modelkit/base/error.h"
#include "modelkit/tokenizer/streaming_decoder.h"
#include "modelkit/tokenizer/tokenizer.h"

namespace {

const modelkit::tokenizer::Tokenizer& FuzzTokenizer() {
  static const auto tokenizer = [] {
    const char* dir = std::getenv("MODELKIT_FUZZ_TOKENIZER");
    return modelkit::tokenizer::Tokenizer::Load(dir && *dir ? dir : MODELKIT_FUZZ_DEFAULT_TOKENIZER);
  }();
  return tokenizer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& tokenizer = FuzzTokenizer();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<int32_t> ids;
  try {
    ids = tokenizer.Encode(text, true);
  } catch (const modelkit::Error&) {
    return 0;  // invalid UTF-8
  }
  const std::string decoded =
      tokenizer.Decode(ids, {.skip_special_tokens = false, .clean_up_tokenization_spaces = false});
  modelkit::tokenizer::StreamingDecoder stream(tokenizer);
  std::string streamed;
  for (const int32_t id : ids) streamed += stream.Step(id);
  streamed += stream.Flush();
  if (streamed != decoded) std::abort();
  return 0;
}
