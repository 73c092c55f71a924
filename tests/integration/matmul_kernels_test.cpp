// modelkit's int4 and fp32 CPU kernels inside ONNX Runtime: a MatMulNBits or MatMul graph run by ORT as written and
// as rewritten to MatMulInt4 / MatMulFp32 gives the same output bits; only nodes the kernels compute exactly are
// rewritten; and whole bundles generate the same logits, bit for bit, with and without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "builder/onnx_writer.h"
#include "generate/fp32_matmul_kernel.h"
#include "generate/int4_matmul_kernel.h"
#include "generate/kernel_rewrites.h"
#include "generate/modelkit_ops.h"
#include "modelkit/base/error.h"
#include "modelkit/base/protobuf_fields.h"
#include "modelkit/generate/decoder_runner.h"
#include "modelkit/generate/model.h"
#include "modelkit/ort/runtime.h"
#include "support/generate_fixtures.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

struct NodeShape {
  int64_t k = 96, n = 40;
  int64_t accuracy_level = 4;
  int64_t block_size = 32;
  bool zero_points = false;
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Y = MatMulNBits(A [S, K]) with random weights and scales, as the builder writes an int4 projection.
std::string WriteGraph(const std::filesystem::path& dir, const NodeShape& shape) {
  const auto path = dir / "model.onnx";
  builder::OnnxModelWriter writer(path, "model.onnx.data");
  const int64_t k = shape.k, n = shape.n;
  writer.AddInput("A", builder::OnnxType::kFloat, {std::string("S"), k});
  std::mt19937 random(5);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  const int64_t blocks = k / shape.block_size;
  std::vector<uint8_t> qweight(static_cast<size_t>(n * k / 2));
  for (uint8_t& b : qweight) b = static_cast<uint8_t>(byte(random));
  std::vector<float> scales(static_cast<size_t>(n * blocks));
  for (float& s : scales) s = scale(random);
  writer.AddInitializer<uint8_t>("W", builder::OnnxType::kUint8, {n, blocks, shape.block_size / 2}, qweight);
  writer.AddFloats("scales", builder::OnnxType::kFloat, {n * blocks}, scales);
  std::vector<std::string> inputs = {"A", "W", "scales"};
  if (shape.zero_points) {
    const std::vector<uint8_t> zero_points(static_cast<size_t>(n * ((blocks + 1) / 2)), 0x88);
    writer.AddInitializer<uint8_t>("zero_points", builder::OnnxType::kUint8, {n * ((blocks + 1) / 2)}, zero_points);
    inputs.push_back("zero_points");
  }
  writer.AddNode(
      "MatMulNBits", inputs, {"Y"},
      {builder::IntAttr("K", k), builder::IntAttr("N", n), builder::IntAttr("bits", 4),
       builder::IntAttr("block_size", shape.block_size), builder::IntAttr("accuracy_level", shape.accuracy_level)},
      "com.microsoft");
  writer.AddOutput("Y", builder::OnnxType::kFloat, {std::string("S"), n});
  writer.Finish();
  return ReadFile(path);
}

std::vector<float> RunGraph(const std::string& model, const std::filesystem::path& dir, const std::vector<float>& a,
                            int64_t k) {
  Ort::Env& env = ort::SharedEnv();  // first: it also binds the C++ wrapper to the runtime's API
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(2);
  options.AddConfigEntry("session.model_external_initializers_file_folder_path", dir.c_str());
  generate::AddModelkitOps(options);
  Ort::Session session(env, model.data(), model.size(), options);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  const std::vector<int64_t> shape = {static_cast<int64_t>(a.size()) / k, k};
  auto input =
      Ort::Value::CreateTensor<float>(memory, const_cast<float*>(a.data()), a.size(), shape.data(), shape.size());
  const char* input_name = "A";
  const char* output_name = "Y";
  auto outputs = session.Run(Ort::RunOptions{nullptr}, &input_name, &input, 1, &output_name, 1);
  const float* data = outputs[0].GetTensorData<float>();
  return {data, data + outputs[0].GetTensorTypeAndShapeInfo().GetElementCount()};
}

// Runs rows `a` through the `original` graph and the `rewritten` one in ORT: every output bit must be the same.
void ExpectSameBits(const std::string& original, const std::string& rewritten, const std::filesystem::path& dir,
                    const std::vector<float>& a, int64_t k, int64_t n) {
  const std::vector<float> expected = RunGraph(original, dir, a, k);
  const std::vector<float> got = RunGraph(rewritten, dir, a, k);
  ASSERT_EQ(got.size(), a.size() / static_cast<size_t>(k) * static_cast<size_t>(n));
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t got_bits = 0, expected_bits = 0;
    std::memcpy(&got_bits, &got[i], sizeof(float));
    std::memcpy(&expected_bits, &expected[i], sizeof(float));
    ASSERT_EQ(got_bits, expected_bits) << "element " << i << ": " << got[i] << " vs ORT's " << expected[i];
  }
}

class Int4MatMulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!generate::Int4KernelSupported()) GTEST_SKIP() << "this CPU lacks AVX-512 VNNI";
  }
};

// Bit for bit: the kernel sums in ORT's order (int4_matmul_kernel.cpp), so a bundle generates exactly what it
// generates on ORT's kernel. The shapes cover whole and partial groups of 4 blocks (K = 96: 3 blocks, 1184: 37),
// partial tiles of 16 columns and the last N % 4 columns (summed in another order by ORT), and row counts from one
// decode step to more than one 64-row work item.
TEST_F(Int4MatMulTest, RewrittenGraphComputesWhatMatMulNBitsComputesBitForBit) {
  TempDir tmp;
  std::mt19937 random(11);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const auto& [k, n] : {std::pair<int64_t, int64_t>{96, 40}, {1184, 43}, {1024, 64}, {160, 18}}) {
    const std::string original = WriteGraph(tmp.path(), {.k = k, .n = n});
    const auto rewritten = generate::UseInt4MatMulKernel(original);
    ASSERT_TRUE(rewritten);
    EXPECT_EQ(rewritten->replaced, 1u);
    for (const int64_t rows : {1, 7, 70, 130}) {
      std::vector<float> a(static_cast<size_t>(rows * k));
      for (float& x : a) x = value(random);
      std::fill_n(a.begin() + k, std::min<int64_t>(32, (rows - 1) * k), 0.0f);  // an all-zero block: scale 0
      SCOPED_TRACE("K " + std::to_string(k) + ", N " + std::to_string(n) + ", " + std::to_string(rows) + " rows");
      ExpectSameBits(original, rewritten->model, tmp.path(), a, k, n);
    }
  }
}

TEST_F(Int4MatMulTest, LeavesNodesItDoesNotComputeExactly) {
  TempDir tmp;
  EXPECT_FALSE(generate::UseInt4MatMulKernel(WriteGraph(tmp.path(), {.accuracy_level = 0})));  // fp32 activations
  EXPECT_FALSE(generate::UseInt4MatMulKernel(WriteGraph(tmp.path(), {.block_size = 16})));
  EXPECT_FALSE(generate::UseInt4MatMulKernel(WriteGraph(tmp.path(), {.zero_points = true})));
}

// A model that already imports the op's domain keeps one import of it (two imports of a domain are invalid).
TEST_F(Int4MatMulTest, ImportsTheOpsDomainOnce) {
  TempDir tmp;
  constexpr uint32_t kOpsetImport = 8, kDomain = 1, kVersion = 2;
  ProtobufMessage model = ParseProtobuf(WriteGraph(tmp.path(), {}), "model");
  model.push_back(
      ProtobufField::Bytes(kOpsetImport, SerializeProtobuf({ProtobufField::Bytes(kDomain, generate::kModelkitOpsDomain),
                                                            ProtobufField::Varint(kVersion, 1)})));
  const auto rewritten = generate::UseInt4MatMulKernel(SerializeProtobuf(model));
  ASSERT_TRUE(rewritten);
  size_t imports = 0;
  const ProtobufMessage fields = ParseProtobuf(rewritten->model, "model");  // owns what the views below see
  for (std::string_view opset : BytesFields(fields, kOpsetImport)) {
    const ProtobufMessage opset_fields = ParseProtobuf(opset, "opset");
    const auto domains = BytesFields(opset_fields, kDomain);
    if (!domains.empty() && domains.front() == generate::kModelkitOpsDomain) ++imports;
  }
  EXPECT_EQ(imports, 1u);
}

size_t Int4Nodes(const generate::Model& model) {
  size_t nodes = 0;
  for (const generate::LoadedStage& stage : model.stages()) nodes += stage.int4_matmul_nodes;
  return nodes;
}

size_t Fp32Nodes(const generate::Model& model) {
  size_t nodes = 0;
  for (const generate::LoadedStage& stage : model.stages()) nodes += stage.fp32_matmul_nodes;
  return nodes;
}

size_t Argmax(std::span<const float> values) {
  return static_cast<size_t>(std::max_element(values.begin(), values.end()) - values.begin());
}

// The same prompt and greedy steps through a bundle with ORT's kernels and with modelkit's (matrix multiplies and
// decode attention): the logits are the same bits at every step, prompt included.
void ExpectSameGeneration(builder::Layout layout, builder::Precision precision = builder::Precision::kInt4) {
  TempDir tmp;
  auto options = TinyGenerateOptions(tmp.path() / "bundle", layout, precision);
  options.int4_accuracy_level = 4;  // int8 activations: what the kernel computes (and the builder's default)
  builder::BuildBundle(options);
  generate::LoadOptions load;
  load.load_tokenizer = false;
  load.int4_cpu_kernel = false;
  load.fp32_cpu_kernel = false;
  load.attention_cpu_kernel = false;
  const auto ort_kernel = generate::Model::Load(options.output_dir, load);
  load.int4_cpu_kernel = true;
  load.fp32_cpu_kernel = true;
  load.attention_cpu_kernel = true;
  const auto own_kernel = generate::Model::Load(options.output_dir, load);
  EXPECT_EQ(Int4Nodes(*ort_kernel) + Fp32Nodes(*ort_kernel), 0u);
  EXPECT_GT(precision == builder::Precision::kInt4 ? Int4Nodes(*own_kernel) : Fp32Nodes(*own_kernel), 0u);
  size_t attention_nodes = 0;
  for (const generate::LoadedStage& stage : own_kernel->stages()) attention_nodes += stage.attention_nodes;
  EXPECT_GT(attention_nodes, 0u);  // the decode steps below run modelkit's attention too

  const auto ort_runner = generate::MakeDecoderRunner(*ort_kernel, 64);
  const auto own_runner = generate::MakeDecoderRunner(*own_kernel, 64);
  std::vector<int64_t> tokens = {3, 17, 200, 5, 91, 44, 12, 250, 7};
  for (int step = 0; step < 8; ++step) {
    const auto expected_span = ort_runner->Run(tokens);
    const std::vector<float> expected(expected_span.begin(), expected_span.end());
    const auto got = own_runner->Run(tokens);
    ASSERT_EQ(got.size(), expected.size());
    ASSERT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0) << "step " << step;
    tokens = {static_cast<int64_t>(Argmax(expected))};
  }
}

TEST_F(Int4MatMulTest, FlatBundleGeneratesTheSameWithEitherKernel) { ExpectSameGeneration(builder::Layout::kFlat); }

TEST_F(Int4MatMulTest, PipelineBundleGeneratesTheSameWithEitherKernel) {
  ExpectSameGeneration(builder::Layout::kPipeline);
}

class Fp32MatMulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!generate::Fp32KernelSupported()) GTEST_SKIP() << "this CPU lacks AVX-512";
  }
};

// Y = MatMul(A [S, K], B) with B random: a constant initializer, or (`b_is_input`) also a graph input.
std::string WriteFp32Graph(const std::filesystem::path& dir, int64_t k, int64_t n, bool b_is_input = false) {
  const auto path = dir / "fp32.onnx";
  builder::OnnxModelWriter writer(path, "fp32.onnx.data");
  writer.AddInput("A", builder::OnnxType::kFloat, {std::string("S"), k});
  if (b_is_input) writer.AddInput("B", builder::OnnxType::kFloat, {k, n});
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> b(static_cast<size_t>(k * n));
  for (float& x : b) x = value(random);
  writer.AddFloats("B", builder::OnnxType::kFloat, {k, n}, b);
  writer.AddNode("MatMul", {"A", "B"}, {"Y"}, {});
  writer.AddOutput("Y", builder::OnnxType::kFloat, {std::string("S"), n});
  writer.Finish();
  return ReadFile(path);
}

// Bit for bit: ORT sums each output in runs of 256 of K (fp32_matmul_kernel.h). K 300 ends in a partial run, 3072 has
// 12; N 20 and 40 end in partial tiles of 16 columns and pairs of tiles; rows from one decode step to more than one
// 64-row work item.
TEST_F(Fp32MatMulTest, RewrittenGraphComputesWhatMatMulComputesBitForBit) {
  TempDir tmp;
  std::mt19937 random(13);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const auto& [k, n] : {std::pair<int64_t, int64_t>{300, 20}, {1024, 64}, {3072, 40}, {16, 3}}) {
    const std::string original = WriteFp32Graph(tmp.path(), k, n);
    const auto rewritten = generate::UseFp32MatMulKernel(original);
    ASSERT_TRUE(rewritten);
    EXPECT_EQ(rewritten->replaced, 1u);
    for (const int64_t rows : {1, 3, 7, 70, 130}) {
      std::vector<float> a(static_cast<size_t>(rows * k));
      for (float& x : a) x = value(random);
      SCOPED_TRACE("K " + std::to_string(k) + ", N " + std::to_string(n) + ", " + std::to_string(rows) + " rows");
      ExpectSameBits(original, rewritten->model, tmp.path(), a, k, n);
    }
  }
}

// A B that a graph input can override is not a constant: the node stays ORT's.
TEST_F(Fp32MatMulTest, LeavesMatMulsWhoseWeightsAreNotConstant) {
  TempDir tmp;
  EXPECT_FALSE(generate::UseFp32MatMulKernel(WriteFp32Graph(tmp.path(), 64, 16, /*b_is_input=*/true)));
}

TEST_F(Fp32MatMulTest, FlatBundleGeneratesTheSameWithEitherKernel) {
  ExpectSameGeneration(builder::Layout::kFlat, builder::Precision::kFp32);
}

// The kernel is the default, and the bundle's choice: `modelkit build --cpu-int4-kernel ort` records the opt-out in
// every stage's session_options, and loading at the defaults follows the record.
TEST_F(Int4MatMulTest, RunsUnlessTheBundleOptsOut) {
  TempDir tmp;
  auto options = TinyGenerateOptions(tmp.path() / "plain", builder::Layout::kPipeline, builder::Precision::kInt4);
  options.int4_accuracy_level = 4;
  builder::BuildBundle(options);
  options.output_dir = tmp.path() / "opted_out";
  options.int4_cpu_kernel = false;
  builder::BuildBundle(options);
  generate::LoadOptions load;
  load.load_tokenizer = false;
  const auto plain = generate::Model::Load(tmp.path() / "plain", load);
  const auto opted_out = generate::Model::Load(tmp.path() / "opted_out", load);
  EXPECT_GT(Int4Nodes(*plain), 0u);
  EXPECT_EQ(Int4Nodes(*opted_out), 0u);
  for (const generate::LoadedStage& stage : plain->stages()) {
    // The embeddings stage has no MatMulNBits; the layers and the lm_head do.
    EXPECT_EQ(stage.int4_matmul_nodes > 0, stage.config.name != "embeddings") << stage.config.name;
  }
}

TEST(Int4CpuKernelOption, NeedsInt4Weights) {
  TempDir tmp;
  auto options = TinyGenerateOptions(tmp.path() / "bundle", builder::Layout::kFlat, builder::Precision::kFp32);
  options.int4_cpu_kernel = true;
  try {
    builder::BuildBundle(options);
    ADD_FAILURE() << "built an fp32 bundle with --cpu-int4-kernel";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(error.what()).find("--cpu-int4-kernel"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "bundle"));
}

}  // namespace
}  // namespace modelkit::test
