// Bundles built by modelkit_builder, run in ORT CPU sessions, against the independent reference decoder.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "builder/int4.h"
#include "builder/random_weights.h"
#include "modelkit/base/files.h"
#include "modelkit/builder/bundle_builder.h"
#include "support/build_fixtures.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Arch;

const std::vector<int64_t> kPrompt = {1, 17, 42, 99, 5, 200, 31};
constexpr int kDecodeSteps = 6;
constexpr double kFp32Tolerance = 2e-3;

builder::BuildOptions RandomOptions(const std::filesystem::path& out, Arch arch, uint64_t seed = 7) {
  builder::BuildOptions options;
  options.output_dir = out;
  options.random = true;
  options.random_spec = TinySpec(arch);
  options.seed = seed;
  options.context_length = 128;
  return options;
}

// Dequantises MatMulNBits blocks independently of the quantiser: low nibble first, zero point 8 unless given.
std::vector<float> Dequantize(const builder::Int4Weight& q) {
  std::vector<float> w(static_cast<size_t>(q.n * q.k));
  const int64_t zp_per_row = (q.blocks_per_row + 1) / 2;
  for (int64_t r = 0; r < q.n; ++r) {
    for (int64_t c = 0; c < q.k; ++c) {
      const int64_t b = c / q.block_size, i = c % q.block_size;
      const uint8_t byte = q.packed[static_cast<size_t>((r * q.blocks_per_row + b) * (q.block_size / 2) + i / 2)];
      const int nibble = i % 2 == 0 ? (byte & 0x0F) : (byte >> 4);
      int zero_point = 8;
      if (!q.zero_points.empty()) {
        const uint8_t zp = q.zero_points[static_cast<size_t>(r * zp_per_row + b / 2)];
        zero_point = b % 2 == 0 ? (zp & 0x0F) : (zp >> 4);
      }
      w[static_cast<size_t>(r * q.k + c)] =
          static_cast<float>(nibble - zero_point) * q.scales[static_cast<size_t>(r * q.blocks_per_row + b)];
    }
  }
  return w;
}

bool IsLinear(const std::string& name) { return name.find("_proj.weight") != std::string::npos; }

class BuildBundleTest : public ::testing::TestWithParam<Arch> {};

TEST_P(BuildBundleTest, Fp32FlatMatchesReferenceWithGrowingKv) {
  TempDir tmp;
  const builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", GetParam());
  const builder::BuildResult result = builder::BuildBundle(options);
  ReferenceDecoder reference(ReferenceConfigFor(result.spec),
                             ReferenceWeightsFrom(result.spec, builder::RandomWeights(result.spec, options.seed)));
  const LogitComparison cmp = CompareWithReference(options.output_dir, reference, kPrompt, kDecodeSteps);
  std::printf("[ fp32 %s ] max |logit diff| = %.3g over %d positions (max |logit| %.3g)\n",
              builder::ArchName(GetParam()).c_str(), cmp.max_abs_diff, cmp.positions, cmp.max_abs_reference);
  EXPECT_EQ(cmp.positions, static_cast<int>(kPrompt.size()) + kDecodeSteps);
  EXPECT_GT(cmp.max_abs_reference, 1.0) << "logits too flat for the comparison to mean anything";
  EXPECT_LT(cmp.max_abs_diff, kFp32Tolerance);
  EXPECT_TRUE(cmp.same_argmax);
}

TEST_P(BuildBundleTest, Fp32FlatMatchesReferenceWithSharedBuffer) {
  TempDir tmp;
  const builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", GetParam());
  const builder::BuildResult result = builder::BuildBundle(options);
  ReferenceDecoder reference(ReferenceConfigFor(result.spec),
                             ReferenceWeightsFrom(result.spec, builder::RandomWeights(result.spec, options.seed)));
  const LogitComparison cmp = CompareWithReference(options.output_dir, reference, kPrompt, kDecodeSteps, 64);
  EXPECT_LT(cmp.max_abs_diff, kFp32Tolerance);
  EXPECT_TRUE(cmp.same_argmax);
}

// fp16 weights, activations, KV and logits: the reference on fp16-rounded weights, within fp16 arithmetic error.
TEST_P(BuildBundleTest, Fp16FlatStaysCloseToReference) {
  TempDir tmp;
  builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", GetParam());
  options.precision = builder::Precision::kFp16;
  const builder::BuildResult result = builder::BuildBundle(options);
  ReferenceDecoder reference(ReferenceConfigFor(result.spec),
                             ReferenceWeightsFrom(result.spec, builder::RandomWeights(result.spec, options.seed),
                                                  [](const std::string&, std::vector<float>& w) {
                                                    for (float& v : w) v = RoundTrip(v, "F16");
                                                  }));
  for (const int64_t shared : {int64_t{0}, int64_t{64}}) {
    ReferenceDecoder fresh = reference;
    const LogitComparison cmp = CompareWithReference(options.output_dir, fresh, kPrompt, kDecodeSteps, shared);
    std::printf("[ fp16 %s%s ] max |logit diff| = %.3g (max |logit| %.3g)\n", builder::ArchName(GetParam()).c_str(),
                shared ? " shared buffer" : "", cmp.max_abs_diff, cmp.max_abs_reference);
    EXPECT_LT(cmp.max_abs_diff, 0.02 * cmp.max_abs_reference);
  }
}

TEST_P(BuildBundleTest, Int4MatchesReferenceWithDequantisedWeights) {
  for (const bool symmetric : {true, false}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "zero points");
    TempDir tmp;
    builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", GetParam());
    options.precision = builder::Precision::kInt4;
    options.int4_symmetric = symmetric;
    options.int4_accuracy_level = 0;
    options.block_size = symmetric ? 32 : 64;
    const builder::BuildResult result = builder::BuildBundle(options);
    const builder::ModelSpec& spec = result.spec;
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const builder::TensorRef& ref : builder::ExpectedTensors(spec)) shapes[ref.name] = ref.shape;
    const auto dequantise = [&](const std::string& name, std::vector<float>& w) {
      if (!IsLinear(name) && name != "lm_head.weight") return;
      const std::vector<int64_t>& shape = shapes.at(name);
      w = Dequantize(builder::QuantizeInt4(w, shape[0], shape[1], options.block_size, symmetric));
    };
    ReferenceWeights weights = ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed), dequantise);
    ReferenceConfig config = ReferenceConfigFor(spec);
    if (spec.tie_word_embeddings) {  // the bundle's lm_head is a quantised copy of the embeddings
      std::vector<float> head = weights["model.embed_tokens.weight"];
      head = Dequantize(builder::QuantizeInt4(head, spec.vocab_size, spec.hidden_size, options.block_size, symmetric));
      weights["lm_head.weight"] = head;
      config.tie_word_embeddings = false;
    }
    ReferenceDecoder reference(config, std::move(weights));
    const LogitComparison cmp = CompareWithReference(options.output_dir, reference, kPrompt, kDecodeSteps);
    std::printf("[ int4 %s %s ] max |logit diff| = %.3g\n", builder::ArchName(GetParam()).c_str(),
                symmetric ? "symmetric" : "zero-points", cmp.max_abs_diff);
    EXPECT_LT(cmp.max_abs_diff, kFp32Tolerance);
    EXPECT_TRUE(cmp.same_argmax);
    // The quantisation is not a no-op: the fp32 reference is far from the int4 bundle.
    ReferenceDecoder fp32_reference(ReferenceConfigFor(spec),
                                    ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed)));
    EXPECT_GT(CompareWithReference(options.output_dir, fp32_reference, kPrompt, kDecodeSteps).max_abs_diff,
              50 * kFp32Tolerance);
  }
}

// The default accuracy_level 4 quantises activations to int8 inside MatMulNBits: close, not exact.
TEST_P(BuildBundleTest, Int4DefaultAccuracyLevelStaysClose) {
  TempDir tmp;
  builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", GetParam());
  options.precision = builder::Precision::kInt4;
  const builder::BuildResult result = builder::BuildBundle(options);
  const builder::ModelSpec& spec = result.spec;
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const builder::TensorRef& ref : builder::ExpectedTensors(spec)) shapes[ref.name] = ref.shape;
  ReferenceWeights weights =
      ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed), [&](const std::string& name, auto& w) {
        if (IsLinear(name) || name == "lm_head.weight") {
          w = Dequantize(builder::QuantizeInt4(w, shapes.at(name)[0], shapes.at(name)[1], 32, true));
        }
      });
  ReferenceConfig config = ReferenceConfigFor(spec);
  if (spec.tie_word_embeddings) {
    weights["lm_head.weight"] = Dequantize(
        builder::QuantizeInt4(weights["model.embed_tokens.weight"], spec.vocab_size, spec.hidden_size, 32, true));
    config.tie_word_embeddings = false;
  }
  ReferenceDecoder reference(config, std::move(weights));
  const LogitComparison cmp = CompareWithReference(options.output_dir, reference, kPrompt, kDecodeSteps);
  std::printf("[ int4 %s accuracy_level 4 ] max |logit diff| = %.3g (max |logit| %.3g)\n",
              builder::ArchName(GetParam()).c_str(), cmp.max_abs_diff, cmp.max_abs_reference);
  EXPECT_LT(cmp.max_abs_diff, 0.05 * cmp.max_abs_reference);
}

TEST_P(BuildBundleTest, Int4EmbeddingsMatchReferenceWithDequantisedTable) {
  for (const bool symmetric : {true, false}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "zero points");
    TempDir tmp;
    builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", GetParam());
    options.embeddings_precision = builder::Precision::kInt4;
    options.int4_symmetric = symmetric;
    options.block_size = 16;
    const builder::BuildResult result = builder::BuildBundle(options);
    const builder::ModelSpec& spec = result.spec;
    ReferenceWeights weights = ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed));
    ReferenceConfig config = ReferenceConfigFor(spec);
    if (spec.tie_word_embeddings) {  // lm_head stays fp32: the original table
      weights["lm_head.weight"] = weights["model.embed_tokens.weight"];
      config.tie_word_embeddings = false;
    }
    std::vector<float>& table = weights["model.embed_tokens.weight"];
    table = Dequantize(builder::QuantizeInt4(table, spec.vocab_size, spec.hidden_size, 16, symmetric));
    ReferenceDecoder reference(config, std::move(weights));
    const LogitComparison cmp = CompareWithReference(options.output_dir, reference, kPrompt, kDecodeSteps);
    std::printf("[ int4 embeddings %s %s ] max |logit diff| = %.3g\n", builder::ArchName(GetParam()).c_str(),
                symmetric ? "symmetric" : "zero-points", cmp.max_abs_diff);
    EXPECT_LT(cmp.max_abs_diff, kFp32Tolerance);
    EXPECT_TRUE(cmp.same_argmax);
    ReferenceDecoder fp32_reference(ReferenceConfigFor(spec),
                                    ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed)));
    EXPECT_GT(CompareWithReference(options.output_dir, fp32_reference, kPrompt, kDecodeSteps).max_abs_diff,
              50 * kFp32Tolerance);
  }
}

TEST_P(BuildBundleTest, SameSeedSameBundleOtherSeedOtherWeights) {
  TempDir tmp;
  builder::BuildBundle(RandomOptions(tmp.path() / "a", GetParam(), 3));
  builder::BuildBundle(RandomOptions(tmp.path() / "b", GetParam(), 3));
  builder::BuildBundle(RandomOptions(tmp.path() / "c", GetParam(), 4));
  const std::string a = ReadTextFile(tmp.path() / "a" / "model.onnx.data", "data");
  EXPECT_EQ(a, ReadTextFile(tmp.path() / "b" / "model.onnx.data", "data"));
  EXPECT_NE(a, ReadTextFile(tmp.path() / "c" / "model.onnx.data", "data"));
  EXPECT_EQ(ReadTextFile(tmp.path() / "a" / "model.onnx", "model"),
            ReadTextFile(tmp.path() / "b" / "model.onnx", "model"));
}

INSTANTIATE_TEST_SUITE_P(Archs, BuildBundleTest, ::testing::Values(Arch::kQwen3, Arch::kLlama),
                         [](const auto& param_info) { return builder::ArchName(param_info.param); });

TEST(BuildBundleConfigTest, GenaiConfigDescribesTheDecoder) {
  TempDir tmp;
  const builder::BuildOptions options = RandomOptions(tmp.path() / "bundle", Arch::kQwen3);
  builder::BuildBundle(options);
  const nlohmann::json config = nlohmann::json::parse(ReadTextFile(options.output_dir / "genai_config.json", "config"));
  const nlohmann::json& model = config["model"];
  EXPECT_EQ(model["type"], "qwen3");
  EXPECT_EQ(model["context_length"], 128);
  EXPECT_EQ(model["vocab_size"], 256);
  EXPECT_EQ(model["decoder"]["filename"], "model.onnx");
  EXPECT_EQ(model["decoder"]["head_size"], 32);
  EXPECT_EQ(model["decoder"]["num_key_value_heads"], 2);
  EXPECT_EQ(model["decoder"]["inputs"]["past_key_names"], "past_key_values.%d.key");
  EXPECT_EQ(model["decoder"]["outputs"]["present_value_names"], "present.%d.value");
  EXPECT_EQ(config["search"]["max_length"], 128);
  EXPECT_EQ(config["search"]["past_present_share_buffer"], true);
  EXPECT_TRUE(std::filesystem::exists(options.output_dir / "model.onnx.data"));
  // Nothing but the bundle is left beside it.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(tmp.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

// The staging folder of a killed build (gigabytes for a real model) is removed by the next build into the same place;
// one of a build still running is not.
TEST(BuildBundleConfigTest, NextBuildRemovesWhatAKilledBuildLeft) {
  TempDir tmp;
  const pid_t ended = fork();
  if (ended == 0) _exit(0);
  ASSERT_GT(ended, 0);
  waitpid(ended, nullptr, 0);  // a process id that no longer runs
  const std::filesystem::path abandoned = tmp.path() / (".bundle.tmp-" + std::to_string(ended));
  const std::filesystem::path running = tmp.path() / (".bundle.tmp-" + std::to_string(getppid()));
  for (const auto& dir : {abandoned, running}) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "model.onnx.data") << "partial weights";
  }
  builder::BuildBundle(RandomOptions(tmp.path() / "bundle", Arch::kQwen3));
  EXPECT_FALSE(std::filesystem::exists(abandoned));
  EXPECT_TRUE(std::filesystem::exists(running / "model.onnx.data"));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "bundle" / "genai_config.json"));
}

}  // namespace
}  // namespace modelkit::test
