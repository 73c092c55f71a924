// `modelkit build` as users run it: random and checkpoint builds, the Qwen3 tokenizer, and the bad-input contract
// (one error line, exit 2 or 3, nothing left behind).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "builder/random_weights.h"
#include "modelkit/base/files.h"
#include "support/build_fixtures.h"
#include "support/cli.h"
#include "support/flat_decoder_runner.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> RandomArgs(const fs::path& out) {
  return {"build",
          "-o",
          out.string(),
          "--random",
          "--arch",
          "qwen3",
          "--hidden-size",
          "32",
          "--layers",
          "2",
          "--heads",
          "4",
          "--kv-heads",
          "2",
          "--head-dim",
          "16",
          "--intermediate-size",
          "48",
          "--vocab-size",
          "100",
          "--seed",
          "3",
          "--context-length",
          "64"};
}

// Nothing but `expected` entries in `dir` (no staging or half-written bundle).
void ExpectOnlyEntries(const fs::path& dir, const std::set<std::string>& expected) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  EXPECT_EQ(names, expected);
}

class BuildCliTest : public ::testing::Test {
 protected:
  // A valid tiny llama checkpoint in tmp_/ckpt (bf16).
  fs::path WriteCheckpoint() {
    const builder::ModelSpec spec = TinySpec(builder::Arch::kLlama);
    WriteHfCheckpoint(tmp_.path() / "ckpt", spec, builder::RandomWeights(spec, 2), "BF16");
    return tmp_.path() / "ckpt";
  }
  ProcessResult BuildFrom(const fs::path& checkpoint) {
    return RunModelkit({"build", "--checkpoint", checkpoint.string(), "-o", (tmp_.path() / "out").string()});
  }
  // The failure contract plus: no bundle and no leftovers beside it.
  void ExpectFailure(const ProcessResult& result, int code, const std::string& fragment) {
    ExpectErrorLine(result, code, fragment);
    EXPECT_FALSE(fs::exists(tmp_.path() / "out"));
    for (const auto& entry : fs::directory_iterator(tmp_.path())) {
      EXPECT_NE(entry.path().filename().string().rfind(".out", 0), 0u) << entry.path();
    }
  }

  TempDir tmp_;
};

TEST_F(BuildCliTest, RandomBuildWritesABundleThatRuns) {
  const ProcessResult result = RunModelkit(RandomArgs(tmp_.path() / "out"));
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("built "), std::string::npos);
  EXPECT_EQ(result.stderr_text, "");
  ExpectOnlyEntries(tmp_.path(), {"out"});
  ExpectOnlyEntries(tmp_.path() / "out", {"genai_config.json", "model.onnx", "model.onnx.data"});
  FlatDecoderRunner runner(tmp_.path() / "out");
  EXPECT_EQ(runner.Run({1, 2, 3}).size(), 300u);
}

// The progress bar is drawn on a terminal only: under a pseudo-terminal (util-linux `script`) it appears.
TEST_F(BuildCliTest, ProgressBarOnlyOnATerminal) {
  std::string command = MODELKIT_BINARY;
  for (const std::string& arg : RandomArgs(tmp_.path() / "out")) command += " " + arg;
  const ProcessResult on_terminal = RunProcess({"/usr/bin/script", "-qec", command + " >/dev/null", "/dev/null"});
  ASSERT_EQ(on_terminal.exit_code, 0) << on_terminal.stderr_text;
  EXPECT_NE(on_terminal.stdout_text.find("building ["), std::string::npos) << on_terminal.stdout_text;
  // qwen3, 2 layers: embeddings + 2 x 11 + final norm + the tied lm_head's second read of the embeddings
  EXPECT_NE(on_terminal.stdout_text.find("25/25 tensors"), std::string::npos) << on_terminal.stdout_text;

  // With stdout on the same terminal, the bar's line is cleared before the summary line starts.
  command = MODELKIT_BINARY;
  for (const std::string& arg : RandomArgs(tmp_.path() / "out2")) command += " " + arg;
  const ProcessResult both = RunProcess({"/usr/bin/script", "-qec", command, "/dev/null"});
  ASSERT_EQ(both.exit_code, 0) << both.stdout_text;
  EXPECT_NE(both.stdout_text.find("\r\033[Kbuilt "), std::string::npos) << both.stdout_text;
}

TEST_F(BuildCliTest, CheckpointBuildWithInt4) {
  const fs::path checkpoint = WriteCheckpoint();
  const ProcessResult result =
      RunModelkit({"build", "--checkpoint", checkpoint.string(), "-o", (tmp_.path() / "out").string(), "--precision",
                   "int4", "--block-size", "16", "--int4-zero-points"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string model = ReadTextFile(tmp_.path() / "out" / "model.onnx", "model");
  EXPECT_NE(model.find("MatMulNBits"), std::string::npos);
  FlatDecoderRunner runner(tmp_.path() / "out");
  EXPECT_EQ(runner.Run({5, 6}).size(), 2u * 256u);
}

TEST_F(BuildCliTest, QwenTokenizerSetsVocabularyAndSpecialTokens) {
  const fs::path tokenizer = fs::path(MODELKIT_QWEN3_TOKENIZER_DIR);
  ASSERT_TRUE(fs::exists(tokenizer / "tokenizer.json"))
      << "run scripts/fetch_test_tokenizers.sh (scripts/setup.sh does)";
  std::vector<std::string> args = {"build",
                                   "-o",
                                   (tmp_.path() / "out").string(),
                                   "--random",
                                   "--arch",
                                   "qwen3",
                                   "--hidden-size",
                                   "32",
                                   "--layers",
                                   "1",
                                   "--heads",
                                   "2",
                                   "--kv-heads",
                                   "1",
                                   "--intermediate-size",
                                   "32",
                                   "--tokenizer",
                                   tokenizer.string(),
                                   "--precision",
                                   "int4",
                                   "--lm-head-precision",
                                   "int4",
                                   "--block-size",
                                   "16"};
  const ProcessResult result = RunModelkit(args);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json config =
      nlohmann::json::parse(ReadTextFile(tmp_.path() / "out" / "genai_config.json", "config"));
  EXPECT_EQ(config["model"]["vocab_size"], 151669);
  EXPECT_EQ(config["model"]["eos_token_id"], 151645);  // <|im_end|>
  EXPECT_EQ(config["model"]["pad_token_id"], 151643);  // <|endoftext|>
  EXPECT_EQ(config["model"]["context_length"], 4096);
  EXPECT_EQ(ReadTextFile(tmp_.path() / "out" / "tokenizer.json", "copy"),
            ReadTextFile(tokenizer / "tokenizer.json", "original"));
  EXPECT_TRUE(fs::exists(tmp_.path() / "out" / "tokenizer_config.json"));
  FlatDecoderRunner runner(tmp_.path() / "out");
  EXPECT_EQ(runner.Run({151644, 872}).size(), 2u * 151669u);
}

TEST_F(BuildCliTest, PipelineEpIsNormalisedThroughTheCatalog) {
  const std::pair<const char*, const char*> cases[] = {{"QNNExecutionProvider", R"([{"qnn": {}}])"},
                                                       {"OpenVINO", R"([{"openvino": {}}])"},
                                                       {"simnpu", R"([{"simnpu": {}}])"},
                                                       {"cpu", "[]"}};
  for (const auto& [ep, providers] : cases) {
    SCOPED_TRACE(ep);
    std::vector<std::string> args = RandomArgs(tmp_.path() / "out");
    args.insert(args.end(), {"--layout", "pipeline", "--ep", ep, "--overwrite"});
    const ProcessResult result = RunModelkit(args);
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    const nlohmann::json config =
        nlohmann::json::parse(ReadTextFile(tmp_.path() / "out" / "genai_config.json", "config"));
    const nlohmann::json& stages = config["model"]["decoder"]["pipeline"][0];
    EXPECT_EQ(stages["ctx"]["session_options"]["provider_options"], nlohmann::json::parse(providers));
    EXPECT_EQ(stages["iter"]["session_options"]["provider_options"], nlohmann::json::parse(providers));
    EXPECT_EQ(stages["lm_head"]["session_options"]["provider_options"], nlohmann::json::array());
  }
  ExpectErrorLine(
      RunModelkit({"build", "-o", (tmp_.path() / "flat").string(), "--random", "--arch", "llama", "--hidden-size", "32",
                   "--layers", "1", "--heads", "2", "--intermediate-size", "32", "--vocab-size", "50", "--ep", "qnn"}),
      2, "--ep applies to --layout pipeline only");
}

// Our protobuf encoder read back by the official onnx package (Debian's python3-onnx), external data included.
// q/k/v and gate/up are one MatMul(NBits) + Split each by default; the logits are exactly those of the separate
// projections (--separate-projections), for fp32 and for int4 with zero points, prompt and decode steps alike.
TEST_F(BuildCliTest, FusedProjectionsGiveTheLogitsOfSeparateOnes) {
  const std::vector<std::vector<std::string>> precisions = {
      {"--precision", "fp32"}, {"--precision", "int4", "--block-size", "16", "--int4-zero-points"}};
  for (const std::vector<std::string>& precision : precisions) {
    SCOPED_TRACE(precision[1]);
    const fs::path fused = tmp_.path() / (precision[1] + "-fused"), separate = tmp_.path() / (precision[1] + "-sep");
    std::vector<std::string> args = RandomArgs(fused);
    args.insert(args.end(), precision.begin(), precision.end());
    ASSERT_EQ(RunModelkit(args).exit_code, 0);
    args = RandomArgs(separate);
    args.insert(args.end(), precision.begin(), precision.end());
    args.push_back("--separate-projections");
    ASSERT_EQ(RunModelkit(args).exit_code, 0);

    const std::string count_ops = R"(
import collections, sys, onnx
m = onnx.load(sys.argv[1] + "/model.onnx", load_external_data=False)
c = collections.Counter(n.op_type for n in m.graph.node)
print(c["MatMul"] + c["MatMulNBits"], c["Split"])
)";
    // 2 layers: 7 projections each + lm_head separately; q/k/v, gate/up, o, down fused.
    EXPECT_EQ(RunProcess({"/usr/bin/python3", "-c", count_ops, separate.string()}).stdout_text, "15 0\n");
    EXPECT_EQ(RunProcess({"/usr/bin/python3", "-c", count_ops, fused.string()}).stdout_text, "9 4\n");

    FlatDecoderRunner fused_runner(fused), separate_runner(separate);
    EXPECT_EQ(fused_runner.Run({1, 2, 3, 4, 5}), separate_runner.Run({1, 2, 3, 4, 5}));
    for (int64_t token : {7, 11, 13}) EXPECT_EQ(fused_runner.Run({token}), separate_runner.Run({token}));
  }
}

TEST_F(BuildCliTest, OnnxPackageReadsEveryBuiltModel) {
  std::vector<std::string> args = RandomArgs(tmp_.path() / "out");
  args.insert(args.end(), {"--layout", "pipeline", "--precision", "int4", "--block-size", "16", "--int4-zero-points",
                           "--embeddings-precision", "int4"});
  ASSERT_EQ(RunModelkit(args).exit_code, 0);
  const std::string script = R"(
import json, sys, onnx
summary = {}
for stage in ["embeddings", "ctx", "iter", "lm_head"]:
    m = onnx.load(sys.argv[1] + "/" + stage + ".onnx", load_external_data=False)
    external = sum(1 for t in m.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL)
    onnx.load_external_data_for_model(m, sys.argv[1])
    ops = sorted({n.op_type for n in m.graph.node})
    summary[stage] = {"ir": m.ir_version, "ops": ops, "external": external,
                      "bytes": sum(len(t.raw_data) for t in m.graph.initializer),
                      "inputs": [i.name for i in m.graph.input], "outputs": [o.name for o in m.graph.output],
                      "opsets": {o.domain: o.version for o in m.opset_import}}
print(json.dumps(summary))
)";
  const ProcessResult result = RunProcess({"/usr/bin/python3", "-c", script, (tmp_.path() / "out").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json summary = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(summary["embeddings"]["ops"], nlohmann::json::parse(R"(["GatherBlockQuantized"])"));
  EXPECT_EQ(summary["embeddings"]["inputs"], nlohmann::json::parse(R"(["input_ids"])"));
  EXPECT_EQ(summary["lm_head"]["ops"], nlohmann::json::parse(R"(["Identity", "MatMulNBits"])"));
  EXPECT_EQ(summary["ctx"]["ir"], 10);
  EXPECT_EQ(summary["ctx"]["opsets"], nlohmann::json::parse(R"({"": 21, "com.microsoft": 1})"));
  EXPECT_EQ(summary["ctx"]["ops"], summary["iter"]["ops"]);
  for (const char* op : {"GroupQueryAttention", "MatMulNBits", "SimplifiedLayerNormalization", "ReduceSum"}) {
    EXPECT_TRUE(std::find(summary["ctx"]["ops"].begin(), summary["ctx"]["ops"].end(), op) !=
                summary["ctx"]["ops"].end())
        << op;
  }
  EXPECT_GT(summary["ctx"]["external"].get<int>(), 0);
  EXPECT_EQ(summary["ctx"]["outputs"][0], "hidden_states");
  EXPECT_EQ(summary["ctx"]["inputs"].size(), 2u + 2u * 2u);  // embeddings, mask, 2 layers x K/V
  // Every byte the model files point at was read back (data_location external -> raw_data after loading).
  EXPECT_GT(summary["ctx"]["bytes"].get<int64_t>(), 10000);
}

TEST_F(BuildCliTest, NonEmptyOutputNeedsOverwrite) {
  fs::create_directories(tmp_.path() / "out");
  std::ofstream(tmp_.path() / "out" / "keep.txt") << "x";
  const ProcessResult refused = RunModelkit(RandomArgs(tmp_.path() / "out"));
  ExpectErrorLine(refused, 2, "not empty; pass --overwrite");
  EXPECT_TRUE(fs::exists(tmp_.path() / "out" / "keep.txt"));
  std::vector<std::string> args = RandomArgs(tmp_.path() / "out");
  args.push_back("--overwrite");
  const ProcessResult replaced = RunModelkit(args);
  ASSERT_EQ(replaced.exit_code, 0) << replaced.stderr_text;
  EXPECT_FALSE(fs::exists(tmp_.path() / "out" / "keep.txt"));
  ExpectOnlyEntries(tmp_.path(), {"out"});
}

// --cpu-int4-kernel records its choice in every session_options of the bundle (the decoder's and each stage's), as
// a string entry onnxruntime-genai hands to ORT: "1" modelkit's kernel, "0" ORT's; the default records nothing;
// fp32 weights refuse it.
TEST_F(BuildCliTest, CpuInt4KernelIsRecordedInEverySessionOptions) {
  std::vector<std::tuple<fs::path, std::string, std::optional<std::string>>> bundles = {
      {tmp_.path() / "modelkit", "modelkit", "1"}, {tmp_.path() / "ort", "ort", "0"}, {tmp_.path() / "plain", "", {}}};
  for (const auto& [bundle, kernel, expected] : bundles) {
    SCOPED_TRACE(bundle.string());
    std::vector<std::string> args = RandomArgs(bundle);
    args.insert(args.end(), {"--layout", "pipeline", "--precision", "int4"});
    if (!kernel.empty()) args.insert(args.end(), {"--cpu-int4-kernel", kernel});
    const ProcessResult result = RunModelkit(args);
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    const nlohmann::json config = nlohmann::json::parse(ReadTextFile(bundle / "genai_config.json", "config"));
    const nlohmann::json& decoder = config["model"]["decoder"];
    std::vector<const nlohmann::json*> all_options = {&decoder["session_options"]};
    for (const char* stage : {"embeddings", "ctx", "iter", "lm_head"}) {
      all_options.push_back(&decoder["pipeline"][0][stage]["session_options"]);
    }
    for (const nlohmann::json* options : all_options) {
      EXPECT_EQ(options->contains("modelkit.int4_cpu_kernel"), expected.has_value()) << *options;
      if (expected) {
        EXPECT_EQ((*options)["modelkit.int4_cpu_kernel"], *expected) << *options;
      }
    }
  }
  std::vector<std::string> args = RandomArgs(tmp_.path() / "fp32");
  args.insert(args.end(), {"--cpu-int4-kernel", "ort"});
  ExpectErrorLine(RunModelkit(args), 2, "--cpu-int4-kernel needs int4 weights");
  EXPECT_FALSE(fs::exists(tmp_.path() / "fp32"));
  args = RandomArgs(tmp_.path() / "bad");
  args.insert(args.end(), {"--precision", "int4", "--cpu-int4-kernel", "mlas"});
  ExpectFailure(RunModelkit(args), 2, "--cpu-int4-kernel");
}

TEST_F(BuildCliTest, BadFlagsAreUsageErrors) {
  const fs::path out = tmp_.path() / "out";
  ExpectFailure(RunModelkit({"build", "-o", out.string()}), 2, "exactly one of --checkpoint DIR or --random");
  ExpectFailure(RunModelkit({"build", "-o", out.string(), "--checkpoint", (tmp_.path() / "nope").string()}), 2,
                "is not a directory");
  std::vector<std::string> args = RandomArgs(out);
  args[5] = "gpt2";  // --arch
  ExpectFailure(RunModelkit(args), 2, "--arch 'gpt2' is not supported");
  args = RandomArgs(out);
  args[11] = "3";  // --kv-heads 3 does not divide 4 heads
  ExpectFailure(RunModelkit(args), 2, "multiple of key/value heads");
  args = RandomArgs(out);
  args[15] = "24";  // --head-dim
  ExpectFailure(RunModelkit(args), 2, "head dim must be a multiple of 16");
  args = RandomArgs(out);
  args.insert(args.end(), {"--block-size", "24", "--precision", "int4"});
  ExpectFailure(RunModelkit(args), 2, "--block-size must be a power of two");
  ExpectFailure(RunModelkit({"build", "-o", out.string(), "--random", "--arch", "qwen3"}), 2, "--random needs");
}

TEST_F(BuildCliTest, MissingConfigJson) {
  const fs::path checkpoint = WriteCheckpoint();
  fs::remove(checkpoint / "config.json");
  ExpectFailure(BuildFrom(checkpoint), 3, "has no config.json");
}

TEST_F(BuildCliTest, UnsupportedArchitecture) {
  const fs::path checkpoint = WriteCheckpoint();
  std::string config = ReadTextFile(checkpoint / "config.json", "config");
  config.replace(config.find("\"llama\""), 7, "\"gpt_neox\"");
  std::ofstream(checkpoint / "config.json") << config;
  ExpectFailure(BuildFrom(checkpoint), 3, "unsupported architecture (model_type 'gpt_neox')");
}

TEST_F(BuildCliTest, MissingTensor) {
  const builder::ModelSpec spec = TinySpec(builder::Arch::kLlama);
  const builder::RandomWeights weights(spec, 2);
  std::vector<RawTensor> tensors;
  for (const builder::TensorRef& ref : builder::ExpectedTensors(spec)) {
    if (ref.name == "model.layers.1.mlp.up_proj.weight") continue;
    tensors.push_back({ref.name, "F32", ref.shape, EncodeFloats(weights.Load(ref.name, ref.shape), "F32")});
  }
  fs::create_directories(tmp_.path() / "ckpt");
  std::ofstream(tmp_.path() / "ckpt" / "config.json") << HfConfigJson(spec);
  WriteSafetensors(tmp_.path() / "ckpt" / "model.safetensors", tensors);
  ExpectFailure(BuildFrom(tmp_.path() / "ckpt"), 3, "has no tensor 'model.layers.1.mlp.up_proj.weight'");
}

TEST_F(BuildCliTest, WrongShape) {
  const fs::path checkpoint = WriteCheckpoint();
  std::string config = ReadTextFile(checkpoint / "config.json", "config");
  config.replace(config.find("\"intermediate_size\": 96"), 23, "\"intermediate_size\": 80");
  std::ofstream(checkpoint / "config.json") << config;
  ExpectFailure(BuildFrom(checkpoint), 3,
                "tensor 'model.layers.0.mlp.gate_proj.weight' has shape [96, 64], expected [80, 64]");
}

TEST_F(BuildCliTest, UnsupportedDtype) {
  const builder::ModelSpec spec = TinySpec(builder::Arch::kLlama);
  const builder::RandomWeights weights(spec, 2);
  std::vector<RawTensor> tensors;
  for (const builder::TensorRef& ref : builder::ExpectedTensors(spec)) {
    std::string bytes = EncodeFloats(weights.Load(ref.name, ref.shape), "F32");
    if (ref.name == "model.norm.weight") {
      tensors.push_back({ref.name, "I32", ref.shape, bytes});
    } else {
      tensors.push_back({ref.name, "F32", ref.shape, bytes});
    }
  }
  fs::create_directories(tmp_.path() / "ckpt");
  std::ofstream(tmp_.path() / "ckpt" / "config.json") << HfConfigJson(spec);
  WriteSafetensors(tmp_.path() / "ckpt" / "model.safetensors", tensors);
  ExpectFailure(BuildFrom(tmp_.path() / "ckpt"), 3, "'model.norm.weight' has unsupported dtype I32");
}

TEST_F(BuildCliTest, TruncatedSafetensors) {
  const fs::path checkpoint = WriteCheckpoint();
  const fs::path file = checkpoint / "model.safetensors";
  fs::resize_file(file, fs::file_size(file) - 100);
  ExpectFailure(BuildFrom(checkpoint), 3, "model.safetensors is truncated: tensor 'lm_head.weight'");
}

}  // namespace
}  // namespace modelkit::test
