// The decoder-pipeline layout: embeddings -> ctx (prompt) / iter (token generation) -> lm_head, fed like
// onnxruntime-genai feeds it, against the reference decoder and the flat bundle of the same weights.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "builder/random_weights.h"
#include "modelkit/base/files.h"
#include "modelkit/builder/bundle_builder.h"
#include "support/build_fixtures.h"
#include "support/flat_decoder_runner.h"
#include "support/pipeline_runner.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Arch;

const std::vector<int64_t> kPrompt = {2, 71, 82, 81, 82, 8, 45};

builder::BuildOptions Options(const std::filesystem::path& out, Arch arch, builder::Layout layout) {
  builder::BuildOptions options;
  options.output_dir = out;
  options.random = true;
  options.random_spec = TinySpec(arch);
  options.seed = 21;
  options.context_length = 64;
  options.layout = layout;
  return options;
}

class BuildPipelineTest : public ::testing::TestWithParam<Arch> {};

TEST_P(BuildPipelineTest, MatchesReferenceAndFlat) {
  TempDir tmp;
  const builder::BuildOptions pipeline = Options(tmp.path() / "pipeline", GetParam(), builder::Layout::kPipeline);
  const builder::BuildResult result = builder::BuildBundle(pipeline);
  builder::BuildBundle(Options(tmp.path() / "flat", GetParam(), builder::Layout::kFlat));

  PipelineRunner runner(pipeline.output_dir);
  ReferenceDecoder reference(ReferenceConfigFor(result.spec),
                             ReferenceWeightsFrom(result.spec, builder::RandomWeights(result.spec, pipeline.seed)));
  std::vector<std::vector<std::string>> stages;
  const LogitComparison cmp = CompareRunWithReference(
      [&](const std::vector<int64_t>& chunk) {
        std::vector<float> logits = runner.Run(chunk);
        stages.push_back(runner.last_stages());
        return logits;
      },
      result.spec.vocab_size, reference, kPrompt, 5);
  std::printf("[ pipeline %s ] max |logit diff| vs reference = %.3g\n", builder::ArchName(GetParam()).c_str(),
              cmp.max_abs_diff);
  EXPECT_LT(cmp.max_abs_diff, 2e-3);
  EXPECT_TRUE(cmp.same_argmax);
  ASSERT_EQ(stages.size(), 6u);
  EXPECT_EQ(stages[0], (std::vector<std::string>{"embeddings", "ctx", "lm_head"}));
  EXPECT_EQ(stages[1], (std::vector<std::string>{"embeddings", "iter", "lm_head"}));

  // Same weights, other layout: the same logits.
  PipelineRunner pipeline_again(pipeline.output_dir);
  FlatDecoderRunner flat(tmp.path() / "flat");
  double max_diff = 0;
  for (const std::vector<int64_t>& chunk : {kPrompt, std::vector<int64_t>{9}, std::vector<int64_t>{10}}) {
    const std::vector<float> a = pipeline_again.Run(chunk), b = flat.Run(chunk);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) max_diff = std::max(max_diff, static_cast<double>(std::fabs(a[i] - b[i])));
  }
  std::printf("[ pipeline %s ] max |logit diff| vs flat = %.3g\n", builder::ArchName(GetParam()).c_str(), max_diff);
  EXPECT_LT(max_diff, 1e-4);
}

TEST_P(BuildPipelineTest, Int4PipelineMatchesInt4Flat) {
  TempDir tmp;
  builder::BuildOptions pipeline = Options(tmp.path() / "pipeline", GetParam(), builder::Layout::kPipeline);
  pipeline.precision = builder::Precision::kInt4;
  pipeline.int4_accuracy_level = 0;
  builder::BuildBundle(pipeline);
  builder::BuildOptions flat_options = pipeline;
  flat_options.output_dir = tmp.path() / "flat";
  flat_options.layout = builder::Layout::kFlat;
  builder::BuildBundle(flat_options);
  PipelineRunner a(pipeline.output_dir);
  FlatDecoderRunner b(flat_options.output_dir);
  double max_diff = 0;
  for (const std::vector<int64_t>& chunk : {kPrompt, std::vector<int64_t>{3}}) {
    const std::vector<float> x = a.Run(chunk), y = b.Run(chunk);
    for (size_t i = 0; i < x.size(); ++i) max_diff = std::max(max_diff, static_cast<double>(std::fabs(x[i] - y[i])));
  }
  EXPECT_LT(max_diff, 1e-4);
}

TEST_P(BuildPipelineTest, Fp16PipelineMatchesFp16Flat) {
  TempDir tmp;
  builder::BuildOptions pipeline = Options(tmp.path() / "pipeline", GetParam(), builder::Layout::kPipeline);
  pipeline.precision = builder::Precision::kFp16;
  builder::BuildBundle(pipeline);
  builder::BuildOptions flat_options = pipeline;
  flat_options.output_dir = tmp.path() / "flat";
  flat_options.layout = builder::Layout::kFlat;
  builder::BuildBundle(flat_options);
  PipelineRunner a(pipeline.output_dir);
  FlatDecoderRunner b(flat_options.output_dir, 64);
  double max_diff = 0, max_logit = 0;
  for (const std::vector<int64_t>& chunk : {kPrompt, std::vector<int64_t>{3}, std::vector<int64_t>{4}}) {
    const std::vector<float> x = a.Run(chunk), y = b.Run(chunk);
    for (size_t i = 0; i < x.size(); ++i) {
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(x[i] - y[i])));
      max_logit = std::max(max_logit, static_cast<double>(std::fabs(y[i])));
    }
  }
  std::printf("[ pipeline fp16 %s ] max |logit diff| vs flat fp16 = %.3g\n", builder::ArchName(GetParam()).c_str(),
              max_diff);
  EXPECT_GT(max_logit, 1.0);
  EXPECT_LT(max_diff, 0.01 * max_logit);  // fp16 rounding may differ where the graphs are cut
}

INSTANTIATE_TEST_SUITE_P(Archs, BuildPipelineTest, ::testing::Values(Arch::kQwen3, Arch::kLlama),
                         [](const auto& param_info) { return builder::ArchName(param_info.param); });

TEST(BuildPipelineConfigTest, StagesAndSessionOptions) {
  TempDir tmp;
  builder::BuildOptions options = Options(tmp.path() / "bundle", Arch::kQwen3, builder::Layout::kPipeline);
  options.ep = "qnn";
  builder::BuildBundle(options);
  const auto config =
      nlohmann::ordered_json::parse(ReadTextFile(options.output_dir / "genai_config.json", "genai config"));
  EXPECT_EQ(config["model"]["type"], "decoder-pipeline");
  EXPECT_EQ(config["search"]["past_present_share_buffer"], true);
  const auto& pipeline = config["model"]["decoder"]["pipeline"];
  ASSERT_TRUE(pipeline.is_array());
  ASSERT_EQ(pipeline.size(), 1u);
  std::vector<std::string> names;
  for (const auto& [name, stage] : pipeline[0].items()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"embeddings", "ctx", "iter", "lm_head"}));
  const auto& stages = pipeline[0];
  EXPECT_EQ(stages["ctx"]["run_on_token_gen"], false);
  EXPECT_EQ(stages["iter"]["run_on_prompt"], false);
  EXPECT_EQ(stages["lm_head"]["is_lm_head"], true);
  EXPECT_EQ(stages["ctx"]["session_options"]["provider_options"], nlohmann::ordered_json::parse(R"([{"qnn": {}}])"));
  EXPECT_EQ(stages["iter"]["session_options"]["provider_options"], nlohmann::ordered_json::parse(R"([{"qnn": {}}])"));
  EXPECT_EQ(stages["embeddings"]["session_options"]["provider_options"], nlohmann::ordered_json::array());
  EXPECT_EQ(stages["lm_head"]["session_options"]["provider_options"], nlohmann::ordered_json::array());
  for (const char* file : {"embeddings.onnx", "ctx.onnx", "iter.onnx", "lm_head.onnx"}) {
    EXPECT_TRUE(std::filesystem::exists(options.output_dir / file)) << file;
  }
}

}  // namespace
}  // namespace modelkit::test
