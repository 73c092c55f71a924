// Defined behaviour at the edges (prompt filling the context, limits beyond it, empty prompt, eos at once) and
// bad bundles (each an Error with exit code 3 naming what is wrong).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <optional>

#include "modelkit/base/error.h"
#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "support/generate_fixtures.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Layout;
constexpr int64_t kContext = 48;

class GenerateEdgeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    flat_ = dir_->path() / "flat";
    pipeline_ = dir_->path() / "pipeline";
    reference_ = new ReferenceDecoder(
        BuildWithReference(TinyGenerateOptions(flat_, Layout::kFlat, builder::Precision::kFp32, kContext)));
    builder::BuildBundle(TinyGenerateOptions(pipeline_, Layout::kPipeline, builder::Precision::kFp32, kContext));
  }
  static void TearDownTestSuite() {
    delete reference_;
    delete dir_;
  }
  static std::unique_ptr<generate::Model> Load(const std::filesystem::path& bundle) {
    generate::LoadOptions options;
    options.load_tokenizer = false;
    return generate::Model::Load(bundle, options);
  }
  // A copy of `bundle` to break.
  static std::filesystem::path Copy(const std::filesystem::path& bundle, const TempDir& tmp) {
    const std::filesystem::path copy = tmp.path() / bundle.filename();
    std::filesystem::copy(bundle, copy, std::filesystem::copy_options::recursive);
    return copy;
  }
  static ExitCode LoadError(const std::filesystem::path& bundle, bool tokenizer = false,
                            std::string* message = nullptr) {
    generate::LoadOptions options;
    options.load_tokenizer = tokenizer;
    try {
      generate::Model::Load(bundle, options);
    } catch (const Error& error) {
      std::printf("  error: %s\n", error.what());
      if (message) *message = error.what();
      return error.code();
    }
    return ExitCode::kOk;
  }
  // The load error's message for `bundle`, which must fail as an invalid model.
  static std::string InvalidModelMessage(const std::filesystem::path& bundle) {
    std::string message;
    EXPECT_EQ(LoadError(bundle, false, &message), ExitCode::kInvalidModel);
    return message;
  }
  // Edits the stage named `name` of `bundle`'s pipeline.
  static void EditStage(const std::filesystem::path& bundle, const std::string& name,
                        const std::function<void(nlohmann::ordered_json&)>& edit) {
    EditGenaiConfig(bundle, [&](auto& config) {
      for (auto& stage : config["model"]["decoder"]["pipeline"]) {
        if (stage.contains(name)) edit(stage[name]);
      }
    });
  }

  static TempDir* dir_;
  static std::filesystem::path flat_, pipeline_;
  static ReferenceDecoder* reference_;
};

TempDir* GenerateEdgeTest::dir_ = nullptr;
std::filesystem::path GenerateEdgeTest::flat_, GenerateEdgeTest::pipeline_;
ReferenceDecoder* GenerateEdgeTest::reference_ = nullptr;

std::vector<int32_t> Prompt(int64_t length) {
  std::vector<int32_t> prompt;
  for (int64_t i = 0; i < length; ++i) prompt.push_back(static_cast<int32_t>((i * 37 + 5) % 256));
  return prompt;
}

TEST_F(GenerateEdgeTest, MaxNewTokensBeyondContextStopsAtContext) {
  for (const auto& bundle : {flat_, pipeline_}) {
    const auto model = Load(bundle);
    generate::GenerateOptions options;
    options.max_new_tokens = 500;
    options.ignore_eos = true;
    const auto prompt = Prompt(10);
    const auto result = generate::Generate(*model, prompt, options);
    EXPECT_EQ(result.stop_reason, generate::StopReason::kMaxLength);
    ASSERT_EQ(result.generated_ids.size(), static_cast<size_t>(kContext - 10));
    EXPECT_EQ(result.generated_ids, ReferenceGreedy(*reference_, prompt, static_cast<int>(kContext - 10)));
  }
}

TEST_F(GenerateEdgeTest, PromptFillingTheContextGeneratesNothing) {
  const auto model = Load(flat_);
  generate::GenerateOptions options;
  options.ignore_eos = true;
  const auto full = generate::Generate(*model, Prompt(kContext), options);
  EXPECT_TRUE(full.generated_ids.empty());
  EXPECT_EQ(full.stop_reason, generate::StopReason::kMaxLength);
  // One slot left: exactly one token, the reference's.
  const auto one = generate::Generate(*model, Prompt(kContext - 1), options);
  EXPECT_EQ(one.generated_ids, ReferenceGreedy(*reference_, Prompt(kContext - 1), 1));
  try {
    generate::Generate(*model, Prompt(kContext + 1), options);
    FAIL() << "a prompt longer than the context must be refused";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(error.what()).find("49 tokens"), std::string::npos) << error.what();
  }
}

TEST_F(GenerateEdgeTest, EmptyPromptIsAUsageError) {
  const auto model = Load(flat_);
  try {
    generate::Generate(*model, std::vector<int32_t>{}, {});
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
  }
}

// Calling a generator out of order is a bug in the calling code, not a user error: a check aborts naming it. The
// death-test child (a fork) only runs that check, never ONNX Runtime.
TEST_F(GenerateEdgeTest, OutOfOrderCallsAbort) {
  const auto model = Load(flat_);
  generate::GenerateOptions options;
  options.max_new_tokens = 2;
  options.ignore_eos = true;
  generate::Generator fresh(*model, options);
  EXPECT_DEATH(fresh.Step(), "internal check failed: prefilled_ && !done");
  generate::Generator generator(*model, options);
  generator.Prefill(Prompt(5));
  EXPECT_DEATH(generator.Prefill(Prompt(5)), "internal check failed: !prefilled_");
  while (!generator.done()) generator.Step();
  EXPECT_EQ(generator.generated().size(), 2u);
  EXPECT_DEATH(generator.Step(), "internal check failed: prefilled_ && !done");
}

TEST_F(GenerateEdgeTest, EosImmediatelyStopsAfterOneToken) {
  TempDir tmp;
  const auto bundle = Copy(flat_, tmp);
  const auto prompt = Prompt(5);
  const int32_t first = ReferenceGreedy(*reference_, prompt, 1).front();
  EditGenaiConfig(bundle, [&](auto& config) { config["model"]["eos_token_id"] = {999999, first}; });
  const auto model = Load(bundle);
  const auto result = generate::Generate(*model, prompt, {});
  EXPECT_EQ(result.generated_ids, std::vector<int32_t>{first});
  EXPECT_EQ(result.stop_reason, generate::StopReason::kEos);
  generate::GenerateOptions ignore;
  ignore.ignore_eos = true;
  ignore.max_new_tokens = 3;
  EXPECT_EQ(generate::Generate(*model, prompt, ignore).generated_ids.size(), 3u);
  generate::GenerateOptions zero;
  zero.max_new_tokens = 0;
  EXPECT_TRUE(generate::Generate(*model, prompt, zero).generated_ids.empty());
  // min_length holds eos back: the first token is then another one.
  generate::GenerateOptions min_length;
  min_length.min_length = 8;
  min_length.max_new_tokens = 1;
  EXPECT_NE(generate::Generate(*model, prompt, min_length).generated_ids.front(), first);
}

// generation_config.json's sampling settings reach the generator for the keys genai_config.json's search does not
// set; a per-call option overrides them, and a search key set in genai_config.json wins over them.
TEST_F(GenerateEdgeTest, GenerationConfigSamplingAppliesBelowSearchAndPerCallOptions) {
  TempDir tmp;
  const auto bundle = Copy(flat_, tmp);
  EditGenaiConfig(bundle, [](auto& config) {
    for (const char* key : {"do_sample", "temperature", "top_k", "top_p"}) config["search"].erase(key);
  });
  std::ofstream(bundle / "generation_config.json") << R"({"do_sample": true, "temperature": 1.5, "top_k": 0})";
  const auto prompt = Prompt(5);
  const auto greedy = ReferenceGreedy(*reference_, prompt, 12);
  const auto run = [&](const std::filesystem::path& dir, std::optional<bool> do_sample, uint64_t seed) {
    generate::GenerateOptions options;
    options.max_new_tokens = 12;
    options.ignore_eos = true;
    options.do_sample = do_sample;
    options.seed = seed;
    return generate::Generate(*Load(dir), prompt, options).generated_ids;
  };
  // Sampling at temperature 1.5 over the whole vocabulary: two seeds give two continuations, neither the greedy one.
  const auto a = run(bundle, std::nullopt, 1), b = run(bundle, std::nullopt, 2);
  EXPECT_NE(a, b);
  EXPECT_NE(a, greedy);
  EXPECT_EQ(run(bundle, false, 1), greedy);
  EditGenaiConfig(bundle, [](auto& config) { config["search"]["do_sample"] = false; });
  EXPECT_EQ(run(bundle, std::nullopt, 1), greedy);
}

// Keys onnxruntime-genai does not know are ignored with one warning each; the bundles `modelkit build` writes have
// none.
TEST_F(GenerateEdgeTest, UnknownConfigKeysAreWarningsAndBuiltBundlesHaveNone) {
  EXPECT_EQ(Load(flat_)->warnings(), std::vector<std::string>{});
  EXPECT_EQ(Load(pipeline_)->warnings(), std::vector<std::string>{});
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  EditGenaiConfig(bundle, [](auto& config) {
    config["model"]["decoder"]["foo"] = 1;
    config["model"]["decoder"]["pipeline"][0]["ctx"]["bar"] = true;
  });
  EXPECT_EQ(Load(bundle)->warnings(),
            (std::vector<std::string>{"genai_config.json: unknown key 'model.decoder.foo' (ignored)",
                                      "genai_config.json: unknown key 'model.decoder.pipeline.ctx.bar' (ignored)"}));
}

TEST_F(GenerateEdgeTest, MissingStageFileIsInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  std::filesystem::remove(bundle / "iter.onnx");
  EXPECT_EQ(LoadError(bundle), ExitCode::kInvalidModel);
}

TEST_F(GenerateEdgeTest, BadJsonIsInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(flat_, tmp);
  std::ofstream(bundle / "genai_config.json") << "{\"model\": {";
  EXPECT_EQ(LoadError(bundle), ExitCode::kInvalidModel);
}

TEST_F(GenerateEdgeTest, UnknownModelTypeIsInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(flat_, tmp);
  EditGenaiConfig(bundle, [](auto& config) { config["model"]["type"] = "whisper"; });
  EXPECT_EQ(LoadError(bundle), ExitCode::kInvalidModel);
}

TEST_F(GenerateEdgeTest, MissingTokenizerIsInvalidModel) {
  EXPECT_EQ(LoadError(flat_, /*tokenizer=*/true), ExitCode::kInvalidModel);
}

TEST_F(GenerateEdgeTest, StageInputsNotMatchingAreInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  EditGenaiConfig(bundle, [](auto& config) {
    auto& inputs = config["model"]["decoder"]["pipeline"][0]["iter"]["inputs"];
    inputs.erase(inputs.begin() + 1);  // attention_mask
  });
  EXPECT_EQ(LoadError(bundle), ExitCode::kInvalidModel);
  EditGenaiConfig(bundle, [](auto& config) {
    config["model"]["decoder"]["pipeline"][0]["iter"]["inputs"].push_back("no_such_input");
  });
  EXPECT_EQ(LoadError(bundle), ExitCode::kInvalidModel);
}

TEST_F(GenerateEdgeTest, PipelineWithoutLogitsOnThePromptIsInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  EditStage(bundle, "lm_head", [](auto& stage) { stage["run_on_prompt"] = false; });
  EXPECT_THAT(InvalidModelMessage(bundle),
              ::testing::HasSubstr("no pipeline stage running on the prompt (run_on_prompt) outputs 'logits'"));
}

TEST_F(GenerateEdgeTest, PipelineWithoutLogitsOnTokensIsInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  EditStage(bundle, "lm_head", [](auto& stage) { stage["run_on_token_gen"] = false; });
  EXPECT_THAT(InvalidModelMessage(bundle),
              ::testing::HasSubstr("no pipeline stage running on token generation (run_on_token_gen) outputs"));
}

TEST_F(GenerateEdgeTest, PipelineStageWhoseInputIsNotMadeInItsPhaseIsInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  // The iter stage no longer runs on tokens: nothing makes the lm_head's hidden states there.
  EditStage(bundle, "iter", [](auto& stage) { stage["run_on_token_gen"] = false; });
  EXPECT_THAT(InvalidModelMessage(bundle), ::testing::HasSubstr("pipeline stage 'lm_head' needs input"));
}

TEST_F(GenerateEdgeTest, TwoLmHeadStagesAreInvalidModel) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  EditStage(bundle, "iter", [](auto& stage) { stage["is_lm_head"] = true; });
  EXPECT_THAT(InvalidModelMessage(bundle), ::testing::HasSubstr("is_lm_head is true for more than one stage"));
}

TEST_F(GenerateEdgeTest, SlidingWindowIsRejected) {
  TempDir tmp;
  const auto bundle = Copy(pipeline_, tmp);
  EditGenaiConfig(bundle, [](auto& config) { config["model"]["decoder"]["sliding_window"] = {{"window_size", 16}}; });
  EXPECT_EQ(LoadError(bundle), ExitCode::kInvalidModel);
}

}  // namespace
}  // namespace modelkit::test
