// The windowed static NPU layout (`modelkit build --window`): static ctx/iter stages over a sliding uint8 (or fp32)
// KV cache, run by the generation runtime window by window, against the independent reference decoder (with the same
// uint8 quantise/dequantise of the cache) and against the flat bundle of the same weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "builder/random_weights.h"
#include "builder/windowed_stage.h"
#include "modelkit/base/files.h"
#include "modelkit/builder/bundle_builder.h"
#include "modelkit/generate/decoder_runner.h"
#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "support/build_fixtures.h"
#include "support/generate_fixtures.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Arch;

constexpr int64_t kWindow = 8;
constexpr int64_t kContext = 64;

builder::BuildOptions WindowedOptions(const std::filesystem::path& out, Arch arch, bool float_kv) {
  builder::BuildOptions options;
  options.output_dir = out;
  options.random = true;
  options.random_spec = TinySpec(arch);
  options.seed = 21;
  options.context_length = kContext;
  options.layout = builder::Layout::kPipeline;
  options.window = kWindow;
  options.float_kv = float_kv;
  return options;
}

std::unique_ptr<generate::Model> LoadWithoutTokenizer(const std::filesystem::path& bundle) {
  generate::LoadOptions load;
  load.load_tokenizer = false;
  return generate::Model::Load(bundle, load);
}

struct Comparison {
  double max_abs_diff = 0;
  double max_abs_reference = 0;
  bool same_argmax = true;
};

void Compare(std::span<const float> actual, const std::vector<float>& wanted, Comparison& result) {
  ASSERT_EQ(actual.size(), wanted.size());
  for (size_t i = 0; i < wanted.size(); ++i) {
    result.max_abs_diff = std::max(result.max_abs_diff, std::fabs(static_cast<double>(actual[i]) - wanted[i]));
    result.max_abs_reference = std::max(result.max_abs_reference, std::fabs(static_cast<double>(wanted[i])));
  }
  const auto argmax = [](auto begin, auto end) { return std::max_element(begin, end) - begin; };
  if (argmax(actual.begin(), actual.end()) != argmax(wanted.begin(), wanted.end())) result.same_argmax = false;
}

// Runs `prompt` and `decode_steps` greedy tokens (chosen by the reference) through the bundle's runtime and the
// reference, comparing the prompt's last logits and every decode step's.
Comparison RunAgainstReference(const std::filesystem::path& bundle, ReferenceDecoder reference,
                               const std::vector<int64_t>& prompt, int decode_steps) {
  const auto model = LoadWithoutTokenizer(bundle);
  const auto runner = generate::MakeDecoderRunner(*model, kContext);
  Comparison result;
  std::vector<float> expected;
  for (const int64_t token : prompt) expected = reference.Step(token);
  Compare(runner->Run(prompt), expected, result);
  for (int step = 0; step < decode_steps; ++step) {
    const int64_t next = std::max_element(expected.begin(), expected.end()) - expected.begin();
    const std::vector<int64_t> token = {next};
    const std::span<const float> logits = runner->Run(token);
    expected = reference.Step(next);
    Compare(logits, expected, result);
  }
  return result;
}

std::vector<int64_t> Prompt(int64_t length) {
  std::vector<int64_t> prompt;
  for (int64_t i = 0; i < length; ++i) prompt.push_back((i * 37 + 11) % 256);
  return prompt;
}

class BuildWindowedTest : public ::testing::TestWithParam<Arch> {};

TEST_P(BuildWindowedTest, Uint8KvMatchesQuantisingReference) {
  TempDir tmp;
  const builder::BuildOptions options = WindowedOptions(tmp.path() / "bundle", GetParam(), /*float_kv=*/false);
  const builder::BuildResult result = builder::BuildBundle(options);
  const builder::RandomWeights weights(result.spec, options.seed);
  ReferenceConfig config = ReferenceConfigFor(result.spec);
  const builder::WindowedKv scales = builder::EstimateKvScales(result.spec, weights);
  config.kv_key_scales.assign(scales.key_scales.begin(), scales.key_scales.end());
  config.kv_value_scales.assign(scales.value_scales.begin(), scales.value_scales.end());
  const ReferenceDecoder reference(config, ReferenceWeightsFrom(result.spec, weights));
  // Shorter than a window, exactly one, several plus a remainder; then decode steps across window boundaries.
  for (const int64_t length : {int64_t{5}, kWindow, 3 * kWindow + 5}) {
    const Comparison cmp = RunAgainstReference(options.output_dir, reference, Prompt(length), 12);
    std::printf("[ windowed uint8 %s, prompt %lld ] max |logit diff| = %.3g of max |logit| %.3g\n",
                builder::ArchName(GetParam()).c_str(), static_cast<long long>(length), cmp.max_abs_diff,
                cmp.max_abs_reference);
    EXPECT_GT(cmp.max_abs_reference, 1.0);
    // Far below what the quantisation alone changes (a reference without it is 1-2% of the largest logit off); an
    // element the graph (fp32) and the reference (fp64) rounded to neighbouring uint8 steps would show as ~1e-3 of it.
    EXPECT_LT(cmp.max_abs_diff, 1e-4 * cmp.max_abs_reference) << "prompt " << length;
    EXPECT_TRUE(cmp.same_argmax) << "prompt " << length;
  }
}

TEST_P(BuildWindowedTest, FloatKvMatchesReference) {
  TempDir tmp;
  const builder::BuildOptions options = WindowedOptions(tmp.path() / "bundle", GetParam(), /*float_kv=*/true);
  const builder::BuildResult result = builder::BuildBundle(options);
  const ReferenceDecoder reference(
      ReferenceConfigFor(result.spec),
      ReferenceWeightsFrom(result.spec, builder::RandomWeights(result.spec, options.seed)));
  for (const int64_t length : {int64_t{3}, kWindow, 2 * kWindow + 1}) {
    const Comparison cmp = RunAgainstReference(options.output_dir, reference, Prompt(length), 10);
    std::printf("[ windowed fp32 %s, prompt %lld ] max |logit diff| = %.3g\n", builder::ArchName(GetParam()).c_str(),
                static_cast<long long>(length), cmp.max_abs_diff);
    EXPECT_LT(cmp.max_abs_diff, 2e-3) << "prompt " << length;
    EXPECT_TRUE(cmp.same_argmax) << "prompt " << length;
  }
}

TEST_P(BuildWindowedTest, Int4FloatKvMatchesInt4Flat) {
  TempDir tmp;
  builder::BuildOptions windowed = WindowedOptions(tmp.path() / "windowed", GetParam(), /*float_kv=*/true);
  windowed.precision = builder::Precision::kInt4;
  windowed.int4_accuracy_level = 0;
  builder::BuildBundle(windowed);
  builder::BuildOptions flat = windowed;
  flat.output_dir = tmp.path() / "flat";
  flat.layout = builder::Layout::kFlat;
  flat.window = 0;
  flat.float_kv = false;
  builder::BuildBundle(flat);
  const auto a_model = LoadWithoutTokenizer(windowed.output_dir), b_model = LoadWithoutTokenizer(flat.output_dir);
  const auto a = generate::MakeDecoderRunner(*a_model, kContext), b = generate::MakeDecoderRunner(*b_model, kContext);
  double max_diff = 0;
  for (const std::vector<int64_t>& chunk : {Prompt(2 * kWindow + 3), std::vector<int64_t>{3}, {4}}) {
    const std::span<const float> x = a->Run(chunk);
    const std::vector<float> x_copy(x.begin(), x.end());
    const std::span<const float> y = b->Run(chunk);
    for (size_t i = 0; i < y.size(); ++i)
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(x_copy[i] - y[i])));
  }
  EXPECT_LT(max_diff, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Archs, BuildWindowedTest, ::testing::Values(Arch::kQwen3, Arch::kLlama),
                         [](const auto& param_info) { return builder::ArchName(param_info.param); });

// Float KV: what the layout computes is the flat model's, so greedy generation gives the flat bundle's tokens.
TEST(BuildWindowedGenerateTest, FloatKvGreedyTokensEqualFlat) {
  TempDir tmp;
  builder::BuildOptions flat = TinyGenerateOptions(tmp.path() / "flat", builder::Layout::kFlat);
  builder::BuildBundle(flat);
  builder::BuildOptions windowed = flat;
  windowed.output_dir = tmp.path() / "windowed";
  windowed.layout = builder::Layout::kPipeline;
  windowed.window = 16;
  windowed.float_kv = true;
  builder::BuildBundle(windowed);
  const std::vector<int32_t> prompt = {2, 71, 82, 81, 82, 8, 45, 9, 10, 11, 12, 13, 40, 50, 60, 70, 80, 90, 100};
  generate::GenerateOptions options;
  options.max_new_tokens = 64;
  options.ignore_eos = true;
  const auto flat_model = LoadWithoutTokenizer(flat.output_dir);
  const auto windowed_model = LoadWithoutTokenizer(windowed.output_dir);
  const generate::GenerationResult a = generate::Generate(*flat_model, prompt, options);
  const generate::GenerationResult b = generate::Generate(*windowed_model, prompt, options);
  ASSERT_EQ(a.generated_ids.size(), 64u);
  EXPECT_EQ(b.generated_ids, a.generated_ids);
  EXPECT_GT(std::set<int32_t>(a.generated_ids.begin(), a.generated_ids.end()).size(), 8u);  // not one repeated token
}

// The runtime feeds ids, mask and positions in the element type each stage declares: the same bundle rewritten (by
// Debian's python3-onnx) to take them as int64 gives the int32 bundle's tokens.
TEST(BuildWindowedGenerateTest, Int64IdsMaskAndPositionsGiveTheSameTokens) {
  TempDir tmp;
  builder::BuildOptions int32 = TinyGenerateOptions(tmp.path() / "int32", builder::Layout::kPipeline);
  int32.window = 16;
  builder::BuildBundle(int32);
  const std::filesystem::path int64 = tmp.path() / "int64";
  const ProcessResult rewrite =
      RunProcess({"/usr/bin/python3", std::string(MODELKIT_FIXTURES_DIR) + "/windowed/int64_inputs.py",
                  int32.output_dir.string(), int64.string()});
  ASSERT_EQ(rewrite.exit_code, 0) << rewrite.stderr_text;
  const auto a = LoadWithoutTokenizer(int32.output_dir), b = LoadWithoutTokenizer(int64);
  for (const generate::LoadedStage& stage : b->stages()) {
    for (size_t i = 0; i < stage.session->GetInputCount(); ++i) {
      const std::string name = stage.session_inputs[i];
      if (name != "input_ids" && name != "attention_mask" && name != "position_ids") continue;
      EXPECT_EQ(stage.session->GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetElementType(),
                ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64)
          << stage.config.name << " " << name;
    }
  }
  const std::vector<int32_t> prompt = {2, 71, 82, 81, 82, 8, 45, 9, 10, 11, 12, 13, 40, 50, 60, 70, 80, 90, 100};
  generate::GenerateOptions options;
  options.max_new_tokens = 24;
  options.ignore_eos = true;
  const generate::GenerationResult expected = generate::Generate(*a, prompt, options);
  ASSERT_EQ(expected.generated_ids.size(), 24u);
  EXPECT_EQ(generate::Generate(*b, prompt, options).generated_ids, expected.generated_ids);
}

TEST(BuildWindowedConfigTest, SlidingWindowAsOnnxruntimeGenaiReadsIt) {
  TempDir tmp;
  builder::BuildOptions options = WindowedOptions(tmp.path() / "bundle", Arch::kQwen3, false);
  options.ep = "simnpu";
  builder::BuildBundle(options);
  const auto config =
      nlohmann::ordered_json::parse(ReadTextFile(options.output_dir / "genai_config.json", "genai config"));
  const auto& decoder = config["model"]["decoder"];
  EXPECT_EQ(decoder["sliding_window"], nlohmann::ordered_json::parse(R"({"window_size": 8, "pad_value": 0,
      "alignment": "right", "slide_key_value_cache": true, "slide_inputs": true})"));
  EXPECT_EQ(decoder["inputs"]["position_ids"], "position_ids");
  EXPECT_TRUE(config["model"].contains("pad_token_id"));
  EXPECT_EQ(config["search"]["past_present_share_buffer"], false);
  const auto& stages = decoder["pipeline"][0];
  EXPECT_EQ(stages["ctx"]["inputs"][2], "position_ids");
  EXPECT_EQ(stages["ctx"]["session_options"]["provider_options"][0].begin().key(), "simnpu");
}

}  // namespace
}  // namespace modelkit::test
