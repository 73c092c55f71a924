// Building from Hugging Face-style checkpoint directories written from the random weights: an f32 checkpoint gives
// exactly the bundle the random weights give; bf16/f16 (single file and shards) match the reference run on the
// rounded weights.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "builder/random_weights.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/builder/bundle_builder.h"
#include "modelkit/generate/config.h"
#include "support/build_fixtures.h"
#include "support/flat_decoder_runner.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Arch;

const std::vector<int64_t> kPrompt = {3, 141, 59, 26, 53, 58};

builder::BuildOptions CheckpointOptions(const std::filesystem::path& checkpoint, const std::filesystem::path& out) {
  builder::BuildOptions options;
  options.checkpoint_dir = checkpoint;
  options.output_dir = out;
  return options;
}

TEST(BuildCheckpointTest, F32CheckpointGivesTheRandomBuildExactly) {
  for (const Arch arch : {Arch::kQwen3, Arch::kLlama}) {
    SCOPED_TRACE(builder::ArchName(arch));
    TempDir tmp;
    const builder::ModelSpec spec = TinySpec(arch);
    const builder::RandomWeights weights(spec, 11);
    WriteHfCheckpoint(tmp.path() / "ckpt", spec, weights, "F32");

    builder::BuildOptions random;
    random.output_dir = tmp.path() / "from_random";
    random.random = true;
    random.random_spec = spec;
    random.seed = 11;
    random.context_length = 128;  // the checkpoint's max_position_embeddings
    builder::BuildBundle(random);
    const builder::BuildResult built =
        builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "from_ckpt"));
    EXPECT_EQ(built.context_length, 128);

    EXPECT_EQ(ReadTextFile(tmp.path() / "from_ckpt" / "model.onnx", "model"),
              ReadTextFile(tmp.path() / "from_random" / "model.onnx", "model"));
    EXPECT_EQ(ReadTextFile(tmp.path() / "from_ckpt" / "model.onnx.data", "data"),
              ReadTextFile(tmp.path() / "from_random" / "model.onnx.data", "data"));
    FlatDecoderRunner a(tmp.path() / "from_ckpt"), b(tmp.path() / "from_random");
    EXPECT_EQ(a.Run(kPrompt), b.Run(kPrompt));
    EXPECT_EQ(a.Run({7}), b.Run({7}));
  }
}

TEST(BuildCheckpointTest, HalfPrecisionCheckpointsMatchTheReferenceOnRoundedWeights) {
  struct Case {
    Arch arch;
    const char* dtype;
    int shards;
  };
  for (const Case& c : {Case{Arch::kQwen3, "BF16", 1}, Case{Arch::kLlama, "BF16", 3}, Case{Arch::kQwen3, "F16", 2}}) {
    SCOPED_TRACE(builder::ArchName(c.arch) + " " + c.dtype + " in " + std::to_string(c.shards) + " file(s)");
    TempDir tmp;
    const builder::ModelSpec spec = TinySpec(c.arch);
    const builder::RandomWeights weights(spec, 5);
    WriteHfCheckpoint(tmp.path() / "ckpt", spec, weights, c.dtype, c.shards);
    builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "bundle"));
    const std::string dtype = c.dtype;
    ReferenceDecoder reference(ReferenceConfigFor(spec),
                               ReferenceWeightsFrom(spec, weights, [&](const std::string&, std::vector<float>& w) {
                                 for (float& v : w) v = RoundTrip(v, dtype);
                               }));
    const LogitComparison cmp = CompareWithReference(tmp.path() / "bundle", reference, kPrompt, 4);
    std::printf("[ %s %s checkpoint ] max |logit diff| = %.3g\n", builder::ArchName(c.arch).c_str(), c.dtype,
                cmp.max_abs_diff);
    EXPECT_LT(cmp.max_abs_diff, 2e-3);
    EXPECT_TRUE(cmp.same_argmax);
  }
}

TEST(BuildCheckpointTest, WithoutTieKeyTheEmbeddingsAreSharedOnlyWhenLmHeadIsAbsent) {
  TempDir tmp;
  const builder::ModelSpec spec = TinySpec(Arch::kQwen3);  // tied: no lm_head.weight written
  WriteHfCheckpoint(tmp.path() / "ckpt", spec, builder::RandomWeights(spec, 1), "F32");
  std::string config = ReadTextFile(tmp.path() / "ckpt" / "config.json", "config");
  const size_t at = config.find("\"tie_word_embeddings\"");
  config.erase(at, config.find('\n', at) - at + 1);
  tmp.Write("ckpt/config.json", config);
  EXPECT_TRUE(
      builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "bundle")).spec.tie_word_embeddings);
}

TEST(BuildCheckpointTest, RopeScalingLinearAndLlama3MatchTheReference) {
  const builder::ModelSpec spec = TinySpec(Arch::kLlama);
  const builder::RandomWeights weights(spec, 8);
  // original_max_position_embeddings 64 puts head_dim 16's wavelengths (6 ... 20000) in all three llama3 bands.
  const std::pair<const char*, const char*> cases[] = {
      {"linear", R"({"rope_type": "linear", "factor": 2.0})"},
      {"llama3", R"({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                    "original_max_position_embeddings": 64})"}};
  for (const auto& [type, scaling] : cases) {
    SCOPED_TRACE(type);
    TempDir tmp;
    WriteHfCheckpoint(tmp.path() / "ckpt", spec, weights, "F32");
    std::string config = ReadTextFile(tmp.path() / "ckpt" / "config.json", "config");
    config.replace(config.find("\"rope_scaling\": null"), 20, std::string("\"rope_scaling\": ") + scaling);
    tmp.Write("ckpt/config.json", config);
    builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "bundle"));
    ReferenceConfig reference_config = ReferenceConfigFor(spec);
    reference_config.rope_type = type;
    reference_config.rope_factor = std::string(type) == "linear" ? 2.0 : 8.0;
    reference_config.rope_original_max_positions = 64;
    ReferenceDecoder reference(reference_config, ReferenceWeightsFrom(spec, weights));
    const std::vector<int64_t> long_prompt = {5, 9, 14, 200, 31, 7, 7, 7, 100, 101, 102, 33, 64, 12, 0, 250};
    const LogitComparison cmp = CompareWithReference(tmp.path() / "bundle", reference, long_prompt, 8);
    std::printf("[ llama rope_scaling %s ] max |logit diff| = %.3g\n", type, cmp.max_abs_diff);
    EXPECT_LT(cmp.max_abs_diff, 2e-3);
    ReferenceDecoder unscaled(ReferenceConfigFor(spec), ReferenceWeightsFrom(spec, weights));
    EXPECT_GT(CompareWithReference(tmp.path() / "bundle", unscaled, long_prompt, 8).max_abs_diff, 0.05)
        << "the scaling must change something for this test to mean anything";
  }
}

TEST(BuildCheckpointTest, SpecialTokensComeFromConfigAndGenerationConfig) {
  TempDir tmp;
  const builder::ModelSpec spec = TinySpec(Arch::kQwen3);
  WriteHfCheckpoint(tmp.path() / "ckpt", spec, builder::RandomWeights(spec, 1), "BF16");
  tmp.Write("ckpt/generation_config.json", R"({"bos_token_id": 1, "eos_token_id": [2, 9]})");
  builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "bundle"));
  const std::string config = ReadTextFile(tmp.path() / "bundle" / "genai_config.json", "config");
  EXPECT_NE(config.find("\"eos_token_id\": [\n            2,\n            9\n        ]"), std::string::npos) << config;
  EXPECT_NE(config.find("\"bos_token_id\": 1"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "bundle" / "generation_config.json"));
}

nlohmann::json ReadSearch(const std::filesystem::path& bundle) {
  std::ifstream in(bundle / "genai_config.json");
  return nlohmann::json::parse(in).at("search");
}

// As onnxruntime-genai's model builder: generation_config.json's settings become `search` (Qwen3's own file here),
// keys it lacks keep the builder's defaults, and the runtime then samples with them.
TEST(BuildCheckpointTest, GenerationConfigSettingsBecomeTheSearchDefaults) {
  TempDir tmp;
  const builder::ModelSpec spec = TinySpec(Arch::kQwen3);
  WriteHfCheckpoint(tmp.path() / "ckpt", spec, builder::RandomWeights(spec, 1), "F32");
  builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "plain"));
  const nlohmann::json plain = ReadSearch(tmp.path() / "plain");
  EXPECT_EQ(plain["do_sample"], false);
  EXPECT_EQ(plain["top_k"], 50);
  EXPECT_EQ(plain["temperature"], 1.0);

  tmp.Write("ckpt/generation_config.json",
            R"({"bos_token_id": 1, "do_sample": true, "eos_token_id": [2, 9], "pad_token_id": 2,
                "temperature": 0.6, "top_k": 20, "top_p": 0.95, "repetition_penalty": null,
                "transformers_version": "4.51.0"})");
  builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "sampled"));
  nlohmann::json expected = plain;
  expected["do_sample"] = true;
  expected["temperature"] = 0.6;
  expected["top_k"] = 20;
  expected["top_p"] = 0.95;
  EXPECT_EQ(ReadSearch(tmp.path() / "sampled"), expected);
  const generate::GenaiConfig config = generate::LoadGenaiConfig(tmp.path() / "sampled");
  EXPECT_TRUE(config.search.do_sample);
  EXPECT_EQ(config.search.top_k, 20);
  EXPECT_DOUBLE_EQ(config.search.top_p, 0.95);
  EXPECT_DOUBLE_EQ(config.search.temperature, 0.6);
}

TEST(BuildCheckpointTest, BadGenerationConfigIsInvalidAndWritesNothing) {
  for (const char* text :
       {R"({"temperature": "hot"})", R"({"top_k": 2.5})", R"({"do_sample": 1})", "{not json", "[1, 2]"}) {
    SCOPED_TRACE(text);
    TempDir tmp;
    const builder::ModelSpec spec = TinySpec(Arch::kQwen3);
    WriteHfCheckpoint(tmp.path() / "ckpt", spec, builder::RandomWeights(spec, 1), "F32");
    tmp.Write("ckpt/generation_config.json", text);
    try {
      builder::BuildBundle(CheckpointOptions(tmp.path() / "ckpt", tmp.path() / "out" / "bundle"));
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::kInvalidModel);
      EXPECT_NE(std::string(error.what()).find("generation_config.json"), std::string::npos) << error.what();
    }
    EXPECT_TRUE(!std::filesystem::exists(tmp.path() / "out") || std::filesystem::is_empty(tmp.path() / "out"));
  }
}

}  // namespace
}  // namespace modelkit::test
