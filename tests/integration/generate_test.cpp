// The generation runtime on bundles from the builder, in real ORT CPU sessions: greedy tokens equal the independent
// reference decoder's, for flat fp32 (growing and shared KV), flat int4 and pipeline fp32; flat equals pipeline.
#include <gtest/gtest.h>

#include <set>

#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "support/generate_fixtures.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Layout;
using builder::Precision;

constexpr int kNewTokens = 40;

const std::vector<std::vector<int32_t>> kPrompts = {
    {1, 17, 42, 99, 5, 200, 31}, {7}, {250, 3, 3, 3, 128, 64, 9, 12, 77, 31, 2, 1, 0, 5}};

std::unique_ptr<generate::Model> LoadIdsOnly(const std::filesystem::path& bundle) {
  generate::LoadOptions options;
  options.load_tokenizer = false;
  return generate::Model::Load(bundle, options);
}

generate::GenerateOptions Greedy(int new_tokens = kNewTokens) {
  generate::GenerateOptions options;
  options.do_sample = false;
  options.max_new_tokens = new_tokens;
  options.ignore_eos = true;
  return options;
}

void ExpectReferenceTokens(const std::filesystem::path& bundle, const ReferenceDecoder& reference) {
  const auto model = LoadIdsOnly(bundle);
  for (const auto& prompt : kPrompts) {
    const generate::GenerationResult result = generate::Generate(*model, prompt, Greedy());
    EXPECT_EQ(result.generated_ids, ReferenceGreedy(reference, prompt, kNewTokens)) << "prompt of " << prompt.size();
    EXPECT_EQ(result.stop_reason, generate::StopReason::kMaxNewTokens);
    // A continuation that is not one repeated token, so the comparison means something.
    EXPECT_GE(std::set<int32_t>(result.generated_ids.begin(), result.generated_ids.end()).size(), 3u);
    EXPECT_EQ(result.timings.decode_step_ns.size(), static_cast<size_t>(kNewTokens - 1));
  }
}

TEST(GenerateTest, FlatFp32SharedBufferMatchesReference) {
  TempDir tmp;
  const auto options = TinyGenerateOptions(tmp.path() / "flat", Layout::kFlat);
  const ReferenceDecoder reference = BuildWithReference(options);
  ExpectReferenceTokens(options.output_dir, reference);
}

TEST(GenerateTest, FlatFp32GrowingKvMatchesReference) {
  TempDir tmp;
  const auto options = TinyGenerateOptions(tmp.path() / "flat", Layout::kFlat);
  const ReferenceDecoder reference = BuildWithReference(options);
  EditGenaiConfig(options.output_dir, [](auto& config) { config["search"]["past_present_share_buffer"] = false; });
  ExpectReferenceTokens(options.output_dir, reference);
}

TEST(GenerateTest, FlatInt4MatchesReferenceOnDequantisedWeights) {
  TempDir tmp;
  const auto options = TinyGenerateOptions(tmp.path() / "int4", Layout::kFlat, Precision::kInt4);
  const ReferenceDecoder reference = BuildWithReference(options);
  ExpectReferenceTokens(options.output_dir, reference);
}

TEST(GenerateTest, PipelineFp32MatchesReferenceAndFlat) {
  TempDir tmp;
  const auto pipeline = TinyGenerateOptions(tmp.path() / "pipeline", Layout::kPipeline);
  const ReferenceDecoder reference = BuildWithReference(pipeline);
  ExpectReferenceTokens(pipeline.output_dir, reference);

  const auto flat = TinyGenerateOptions(tmp.path() / "flat", Layout::kFlat);
  builder::BuildBundle(flat);
  const auto flat_model = LoadIdsOnly(flat.output_dir);
  const auto pipeline_model = LoadIdsOnly(pipeline.output_dir);
  for (const auto& prompt : kPrompts) {
    const auto a = generate::Generate(*flat_model, prompt, Greedy());
    const auto b = generate::Generate(*pipeline_model, prompt, Greedy());
    EXPECT_EQ(a.generated_ids, b.generated_ids);
  }
  // Stage timings: embeddings and lm_head every step, ctx on the prompt only, iter on tokens only.
  const auto result = generate::Generate(*pipeline_model, kPrompts[0], Greedy(5));
  ASSERT_EQ(result.timings.stages.size(), 4u);
  EXPECT_EQ(result.timings.stages[0].name, "embeddings");
  EXPECT_EQ(result.timings.stages[0].prompt_run_ns.size(), 1u);
  EXPECT_EQ(result.timings.stages[0].token_run_ns.size(), 4u);
  EXPECT_EQ(result.timings.stages[1].token_run_ns.size(), 0u);
  EXPECT_EQ(result.timings.stages[2].prompt_run_ns.size(), 0u);
  EXPECT_EQ(result.timings.stages[2].token_run_ns.size(), 4u);
}

TEST(GenerateTest, SeededSamplingIsReproducible) {
  TempDir tmp;
  const auto options = TinyGenerateOptions(tmp.path() / "flat", Layout::kFlat);
  builder::BuildBundle(options);
  const auto model = LoadIdsOnly(options.output_dir);
  generate::GenerateOptions sampling = Greedy(24);
  sampling.do_sample = true;
  sampling.temperature = 1.5;
  sampling.top_k = 40;
  sampling.top_p = 0.95;
  sampling.seed = 1234;
  const auto a = generate::Generate(*model, kPrompts[0], sampling);
  const auto b = generate::Generate(*model, kPrompts[0], sampling);
  EXPECT_EQ(a.generated_ids, b.generated_ids);
  sampling.seed = 99;
  const auto c = generate::Generate(*model, kPrompts[0], sampling);
  EXPECT_NE(a.generated_ids, c.generated_ids);
  EXPECT_NE(a.generated_ids, generate::Generate(*model, kPrompts[0], Greedy(24)).generated_ids);
}

}  // namespace
}  // namespace modelkit::test
