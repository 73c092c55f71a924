// Prompt logits for the last position only (src/generate/last_position_logits.h): the rewritten graph against the
// bundle's own, in real ORT sessions, and the graphs the rewrite must leave alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "builder/onnx_writer.h"
#include "generate/last_position_logits.h"
#include "modelkit/generate/decoder_runner.h"
#include "modelkit/generate/model.h"
#include "modelkit/ort/runtime.h"
#include "support/generate_fixtures.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using builder::Layout;
using builder::Precision;

std::unique_ptr<generate::Model> Load(const std::filesystem::path& bundle, bool last_position_logits) {
  generate::LoadOptions load;
  load.load_tokenizer = false;
  load.last_position_logits = last_position_logits;
  return generate::Model::Load(bundle, load);
}

size_t RewrittenStages(const generate::Model& model) {
  return static_cast<size_t>(std::count_if(model.stages().begin(), model.stages().end(),
                                           [](const generate::LoadedStage& s) { return s.last_position_logits; }));
}

size_t Argmax(const std::vector<float>& values) {
  return static_cast<size_t>(std::max_element(values.begin(), values.end()) - values.begin());
}

// The same prompt and tokens through the bundle's graph (every position's logits) and the rewritten one: the last
// row agrees to rounding (the lm_head may take another kernel path for one row), and one-token steps, where both
// graphs compute the same, agree bit for bit.
void ExpectSameLogits(Layout layout, Precision precision) {
  TempDir tmp;
  const auto options = TinyGenerateOptions(tmp.path() / "bundle", layout, precision);
  builder::BuildBundle(options);
  const auto full = Load(options.output_dir, false);
  const auto last = Load(options.output_dir, true);
  EXPECT_EQ(RewrittenStages(*full), 0u);
  EXPECT_EQ(RewrittenStages(*last), 1u);  // the one stage making logits

  const auto full_runner = generate::MakeDecoderRunner(*full, 64);
  const auto last_runner = generate::MakeDecoderRunner(*last, 64);
  const std::vector<int64_t> prompt = {3, 17, 200, 5, 91, 44, 12, 250, 7};
  const auto full_span = full_runner->Run(prompt);
  const std::vector<float> full_logits(full_span.begin(), full_span.end());
  const auto last_span = last_runner->Run(prompt);
  const std::vector<float> last_logits(last_span.begin(), last_span.end());
  ASSERT_EQ(full_logits.size(), last_logits.size());
  float largest = 0.0f, worst = 0.0f;
  for (size_t i = 0; i < full_logits.size(); ++i) {
    largest = std::max(largest, std::abs(full_logits[i]));
    worst = std::max(worst, std::abs(full_logits[i] - last_logits[i]));
  }
  std::printf("prompt logits: largest %g, largest difference %g\n", largest, worst);
  EXPECT_LE(worst, 1e-5f * largest);
  EXPECT_EQ(Argmax(full_logits), Argmax(last_logits));

  int64_t token = static_cast<int64_t>(Argmax(full_logits));
  for (int step = 0; step < 4; ++step) {
    const auto full_step = full_runner->Run(std::span<const int64_t>(&token, 1));
    const std::vector<float> expected(full_step.begin(), full_step.end());
    const auto last_step = last_runner->Run(std::span<const int64_t>(&token, 1));
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), last_step.begin(), last_step.end())) << "step " << step;
    token = static_cast<int64_t>(Argmax(expected));
  }
}

TEST(LastPositionLogitsTest, FlatFp32PromptLogitsAreTheFullGraphsLastRow) {
  ExpectSameLogits(Layout::kFlat, Precision::kFp32);
}
TEST(LastPositionLogitsTest, FlatInt4PromptLogitsAreTheFullGraphsLastRow) {
  ExpectSameLogits(Layout::kFlat, Precision::kInt4);
}
TEST(LastPositionLogitsTest, PipelinePromptLogitsAreTheFullGraphsLastRow) {
  ExpectSameLogits(Layout::kPipeline, Precision::kInt4);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A graph hidden [1, S, 4] -> MatMul -> `tail` ops -> logits [1, S or 1, 8], written by the builder's writer.
struct GraphShape {
  std::vector<std::string> tail;  // ops between the MatMul and the output, each one input
  bool logits_read_elsewhere = false;
  bool declared_last_only = false;
};
std::string WriteGraph(const std::filesystem::path& dir, const GraphShape& shape) {
  const auto path = dir / "model.onnx";
  builder::OnnxModelWriter writer(path, "model.onnx.data");
  writer.AddInput("hidden", builder::OnnxType::kFloat, {int64_t{1}, std::string("S"), int64_t{4}});
  std::vector<float> weight(32);
  for (size_t i = 0; i < weight.size(); ++i) weight[i] = static_cast<float>(i % 8) - 3.5f;
  writer.AddFloats("weight", builder::OnnxType::kFloat, {4, 8}, weight);
  std::string value = "matmul_out";
  writer.AddNode("MatMul", {"hidden", "weight"}, {value});
  for (size_t i = 0; i < shape.tail.size(); ++i) {
    const std::string next = i + 1 == shape.tail.size() ? "logits" : "tail" + std::to_string(i);
    if (shape.tail[i] == "Cast") {
      writer.AddNode("Cast", {value}, {next}, {builder::IntAttr("to", 1)});
    } else {
      writer.AddNode(shape.tail[i], {value}, {next});
    }
    value = next;
  }
  if (shape.tail.empty()) writer.AddNode("Identity", {value}, {"logits"});
  if (shape.logits_read_elsewhere) {
    writer.AddNode("Identity", {"logits"}, {"copy"});
    writer.AddOutput("copy", builder::OnnxType::kFloat, {int64_t{1}, std::string("S"), int64_t{8}});
  }
  const builder::OnnxDim rows = shape.declared_last_only ? builder::OnnxDim(int64_t{1}) : builder::OnnxDim("S");
  writer.AddOutput("logits", builder::OnnxType::kFloat, {int64_t{1}, rows, int64_t{8}});
  writer.Finish();
  return ReadFile(path);
}

TEST(LastPositionLogitsTest, RewritesOnlyAMatmulReachedThroughPositionwiseOps) {
  TempDir tmp;
  EXPECT_TRUE(generate::SliceLogitsToLastPosition(WriteGraph(tmp.path(), {}), "logits"));
  EXPECT_TRUE(generate::SliceLogitsToLastPosition(WriteGraph(tmp.path(), {{"Cast", "Identity"}}), "logits"));
  // An op that may mix positions or take another input: left alone.
  EXPECT_FALSE(generate::SliceLogitsToLastPosition(WriteGraph(tmp.path(), {{"Softmax"}}), "logits"));
  // Every position's logits are read by something else too.
  EXPECT_FALSE(generate::SliceLogitsToLastPosition(WriteGraph(tmp.path(), {{}, true, false}), "logits"));
  // Already one position.
  EXPECT_FALSE(generate::SliceLogitsToLastPosition(WriteGraph(tmp.path(), {{}, false, true}), "logits"));
  // No such output.
  EXPECT_FALSE(generate::SliceLogitsToLastPosition(WriteGraph(tmp.path(), {}), "scores"));
}

// The tiny graph run by ORT as written and as rewritten: the rewritten one outputs one row, the full one's last.
std::vector<int64_t> RunTinyGraph(const std::string& model, const std::vector<float>& hidden, std::vector<float>& out) {
  Ort::Env& env = ort::SharedEnv();  // first: it also binds the C++ wrapper to the runtime's API
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  Ort::Session session(env, model.data(), model.size(), options);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  const std::vector<int64_t> shape = {1, static_cast<int64_t>(hidden.size() / 4), 4};
  auto input = Ort::Value::CreateTensor<float>(memory, const_cast<float*>(hidden.data()), hidden.size(), shape.data(),
                                               shape.size());
  const char* input_name = "hidden";
  const char* output_name = "logits";
  auto outputs = session.Run(Ort::RunOptions{nullptr}, &input_name, &input, 1, &output_name, 1);
  const auto info = outputs[0].GetTensorTypeAndShapeInfo();
  const float* data = outputs[0].GetTensorData<float>();
  out.assign(data, data + info.GetElementCount());
  return info.GetShape();
}

TEST(LastPositionLogitsTest, RewrittenGraphComputesTheLastRowOnly) {
  TempDir tmp;
  // Weights differ per column so rows differ; hidden states differ per position.
  const std::string full = WriteGraph(tmp.path(), {{"Cast", "Identity"}});
  const auto last = generate::SliceLogitsToLastPosition(full, "logits");
  ASSERT_TRUE(last);
  std::vector<float> hidden(3 * 4);
  for (size_t i = 0; i < hidden.size(); ++i) hidden[i] = static_cast<float>(i) * 0.25f - 1.0f;
  std::vector<float> full_out, last_out;
  EXPECT_EQ(RunTinyGraph(full, hidden, full_out), (std::vector<int64_t>{1, 3, 8}));
  EXPECT_EQ(RunTinyGraph(*last, hidden, last_out), (std::vector<int64_t>{1, 1, 8}));
  ASSERT_EQ(last_out.size(), 8u);
  EXPECT_TRUE(std::equal(last_out.begin(), last_out.end(), full_out.end() - 8));
  EXPECT_FALSE(std::equal(last_out.begin(), last_out.end(), full_out.begin()));  // not the first row
}

}  // namespace
}  // namespace modelkit::test
