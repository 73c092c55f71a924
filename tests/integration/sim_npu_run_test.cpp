// The simulated NPU plugin EP as ORT really loads it: a virtual NPU device, whole models and partial models (op_deny)
// computed in its partitions with the outputs of independent numpy references and of the CPU EP.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <thread>

#include "modelkit/ort/runtime.h"
#include "support/model_case.h"
#include "support/sim_npu.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

using test::kSimNpu;
using test::kSimNpu2;

std::vector<Ort::Value> RunCase(Ort::Session& session, const test::ModelCase& model_case) {
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<Ort::Value> inputs;
  std::vector<const char*> input_names;
  for (const test::CaseTensor& tensor : model_case.inputs) {
    inputs.push_back(Ort::Value::CreateTensor(memory, const_cast<std::byte*>(tensor.data.data()), tensor.data.size(),
                                              tensor.shape.data(), tensor.shape.size(), tensor.type));
    input_names.push_back(tensor.name.c_str());
  }
  std::vector<const char*> output_names;
  for (const test::CaseTensor& tensor : model_case.outputs) output_names.push_back(tensor.name.c_str());
  return session.Run(Ort::RunOptions{nullptr}, input_names.data(), inputs.data(), inputs.size(), output_names.data(),
                     output_names.size());
}

TEST(SimNpuDevice, OffersOnlyAVirtualNpuPerRegistrationWithItsVersion) {
  for (const char* ep_name : {kSimNpu, kSimNpu2}) {
    const std::vector<Ort::ConstEpDevice> devices = test::SimNpuDevices(ep_name);
    ASSERT_EQ(devices.size(), 1u) << ep_name;
    EXPECT_EQ(devices[0].Device().Type(), OrtHardwareDeviceType_NPU);
    EXPECT_STREQ(devices[0].EpVendor(), "modelkit");
    EXPECT_STREQ(devices[0].EpMetadata().GetValue("version"), "1.0.0");
  }
  EXPECT_NE(static_cast<const OrtHardwareDevice*>(test::SimNpuDevices(kSimNpu)[0].Device()),
            static_cast<const OrtHardwareDevice*>(test::SimNpuDevices(kSimNpu2)[0].Device()));
}

TEST(SimNpuDevice, PreferNpuPolicySelectsTheSimulatedNpu) {
  test::RegisterSimNpu();
  const test::ModelCase model_case = test::LoadModelCase("matmul_add");
  const int64_t runs_before = test::ReadSimNpuCounters().runs + test::ReadSimNpuCounters(kSimNpu2).runs;
  Ort::SessionOptions options;
  options.SetEpSelectionPolicy(OrtExecutionProviderDevicePolicy_PREFER_NPU);
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  test::ExpectCaseOutputs(session, model_case);
  EXPECT_GT(test::ReadSimNpuCounters().runs + test::ReadSimNpuCounters(kSimNpu2).runs, runs_before);
}

TEST(SimNpuDevice, RejectsADeviceTypeOtherThanNpu) {
  Ort::SessionOptions options;
  test::AppendSimNpu(options, {{"device_type", "GPU"}});
  const test::ModelCase model_case = test::LoadModelCase("matmul_add");
  try {
    Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
    FAIL() << "a GPU device_type was accepted";
  } catch (const Ort::Exception& error) {
    EXPECT_NE(std::string(error.what()).find("device_type 'GPU' is not supported"), std::string::npos) << error.what();
  }
}

class SimNpuModels : public ::testing::TestWithParam<std::string> {};

// With CPU fallback disabled, session creation fails unless the simulated NPU takes every node.
TEST_P(SimNpuModels, RunEntirelyOnTheNpuWithReferenceOutputs) {
  const test::ModelCase model_case = test::LoadModelCase(GetParam());
  Ort::SessionOptions options;
  options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  test::AppendSimNpu(options, {{"device_type", "NPU"}});
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  const auto nodes = test::NodesPerEp(session);
  EXPECT_EQ(nodes.size(), 1u);
  EXPECT_GT(nodes.count(kSimNpu) ? nodes.at(kSimNpu) : 0u, 0u);

  const int64_t runs_before = test::ReadSimNpuCounters().runs;
  test::ExpectCaseOutputs(session, model_case);
  EXPECT_GE(test::ReadSimNpuCounters().runs, runs_before + 1);
}

INSTANTIATE_TEST_SUITE_P(Models, SimNpuModels,
                         ::testing::Values("matmul_add", "matmul_nbits", "gqa_prompt", "gqa_with_past", "decoder",
                                           "decoder_external"));

// static_shapes=1: like a real NPU compiler, the simulated NPU leaves every node with a dynamic dimension to the CPU
// EP, and takes the whole model once ORT's free-dimension overrides make every shape static.
TEST(SimNpuStaticShapes, DynamicDimensionsStayOnTheCpuAndFixedOnesRunOnTheNpu) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions dynamic_options;
  dynamic_options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  test::AppendSimNpu(dynamic_options, {{"static_shapes", "1"}});
  Ort::Session dynamic(ort::SharedEnv(), model_case.model.c_str(), dynamic_options);
  const auto dynamic_nodes = test::NodesPerEp(dynamic);
  EXPECT_EQ(dynamic_nodes.count(kSimNpu), 0u) << "a node with a dynamic dimension was claimed";
  EXPECT_GT(dynamic_nodes.count("CPUExecutionProvider") ? dynamic_nodes.at("CPUExecutionProvider") : 0u, 0u);
  test::ExpectCaseOutputs(dynamic, model_case);

  Ort::SessionOptions static_options;
  static_options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  static_options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  static_options.AddFreeDimensionOverrideByName("batch", model_case.inputs.at(0).shape.at(0));
  static_options.AddFreeDimensionOverrideByName("seq", model_case.inputs.at(0).shape.at(1));
  test::AppendSimNpu(static_options, {{"static_shapes", "1"}});
  Ort::Session fixed(ort::SharedEnv(), model_case.model.c_str(), static_options);
  const auto fixed_nodes = test::NodesPerEp(fixed);
  EXPECT_EQ(fixed_nodes.size(), 1u);
  EXPECT_GT(fixed_nodes.count(kSimNpu) ? fixed_nodes.at(kSimNpu) : 0u, 0u);
  test::ExpectCaseOutputs(fixed, model_case);
}

struct DenyCase {
  std::string model;
  std::string op_deny;
};

void PrintTo(const DenyCase& deny_case, std::ostream* out) {
  *out << deny_case.model << ", op_deny=" << deny_case.op_deny;
}

class SimNpuPartialModels : public ::testing::TestWithParam<DenyCase> {};

// Denied op types stay on the CPU EP; the rest is split into several NPU partitions, and outputs still match both
// the references and the CPU EP. Not bit for bit: each inner session fuses only what its partition holds (the CPU
// session alone may fuse Div/Erf/Add/Mul into one Gelu kernel), so float results may differ in the last bits.
TEST_P(SimNpuPartialModels, SplitBetweenNpuAndCpuWithTheCpuEpsOutputs) {
  const test::ModelCase model_case = test::LoadModelCase(GetParam().model);
  Ort::SessionOptions options;
  options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  test::AppendSimNpu(options, {{"op_deny", GetParam().op_deny}});
  test::ResetSimNpuCounters();
  Ort::Session npu(ort::SharedEnv(), model_case.model.c_str(), options);
  const auto nodes = test::NodesPerEp(npu);
  EXPECT_GT(nodes.count(kSimNpu) ? nodes.at(kSimNpu) : 0u, 0u);
  EXPECT_GT(nodes.count("CPUExecutionProvider") ? nodes.at("CPUExecutionProvider") : 0u, 0u);
  const test::SimNpuCounters compiled = test::ReadSimNpuCounters();
  EXPECT_GE(compiled.compiled_partitions, 2);

  test::ExpectCaseOutputs(npu, model_case);
  EXPECT_GE(test::ReadSimNpuCounters().runs, compiled.compiled_partitions);

  Ort::Session cpu(ort::SharedEnv(), model_case.model.c_str(), Ort::SessionOptions{});
  std::vector<Ort::Value> npu_outputs = RunCase(npu, model_case);
  std::vector<Ort::Value> cpu_outputs = RunCase(cpu, model_case);
  ASSERT_EQ(npu_outputs.size(), cpu_outputs.size());
  for (size_t i = 0; i < npu_outputs.size(); ++i) {
    ASSERT_EQ(npu_outputs[i].GetTensorTypeAndShapeInfo().GetShape(),
              cpu_outputs[i].GetTensorTypeAndShapeInfo().GetShape());
    const size_t count = npu_outputs[i].GetTensorTypeAndShapeInfo().GetElementCount();
    const float* got = npu_outputs[i].GetTensorData<float>();
    const float* want = cpu_outputs[i].GetTensorData<float>();
    size_t mismatches = 0;
    for (size_t j = 0; j < count; ++j) mismatches += std::fabs(got[j] - want[j]) > 1e-5f + 1e-5f * std::fabs(want[j]);
    EXPECT_EQ(mismatches, 0u) << model_case.outputs[i].name;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SimNpuPartialModels,
                         ::testing::Values(DenyCase{"decoder", "Softmax"}, DenyCase{"decoder", "Erf,Transpose"},
                                           DenyCase{"decoder", "MatMul"}),
                         [](const auto& param_info) { return "Case" + std::to_string(param_info.index); });

// Writes a model of y = (...((x * scale_0 + bias_0) * scale_1 + bias_1) ...) (x, y and every initializer float
// [rows, cols]) to `model`, with the initializers in an external data file beside it. Neither Mul nor Add prepacks
// its constant input, so the partition reads their data at every run.
void WriteScaleBiasChain(const std::filesystem::path& model, const std::vector<std::vector<float>>& scales,
                         const std::vector<std::vector<float>>& biases, int64_t rows, int64_t cols) {
  const std::vector<int64_t> shape = {rows, cols};
  const auto tensor = [&] {
    return Ort::TypeInfo::CreateTensorInfo(
        Ort::TensorTypeAndShapeInfo(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, shape).GetConst());
  };
  Ort::Graph graph;
  std::vector<Ort::ValueInfo> inputs, outputs;
  inputs.emplace_back("x", tensor().GetConst());
  outputs.emplace_back("y", tensor().GetConst());
  graph.SetInputs(inputs);
  graph.SetOutputs(outputs);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::string value = "x";
  for (size_t i = 0; i < scales.size(); ++i) {
    const std::string n = std::to_string(i);
    for (const auto& [name, data] : {std::pair{"scale_" + n, &scales[i]}, std::pair{"bias_" + n, &biases[i]}}) {
      Ort::Value initializer =
          Ort::Value::CreateTensor(memory, const_cast<float*>(data->data()), data->size(), shape.data(), shape.size());
      graph.AddInitializer(name, initializer, /*data_is_external=*/true);
    }
    const std::string next = i + 1 == scales.size() ? "y" : "sum_" + n;
    Ort::Node mul("Mul", "", "mul_" + n, {value, "scale_" + n}, {"product_" + n});
    Ort::Node add("Add", "", "add_" + n, {"product_" + n, "bias_" + n}, {next});
    graph.AddNode(mul);
    graph.AddNode(add);
    value = next;
  }
  Ort::Model onnx({{"", 21}});
  onnx.AddGraph(graph);
  // A compile on the CPU EP alone changes nothing and writes the model with its initializers in a data file.
  Ort::SessionOptions cpu_only;
  Ort::ModelCompilationOptions compile(ort::SharedEnv(), cpu_only);
  compile.SetInputModel(onnx);
  compile.SetOutputModelPath(model.c_str());
  const std::filesystem::path data = model.filename().string() + ".data";  // relative to the model's folder
  compile.SetOutputModelExternalInitializersFile(data.c_str(), 0);
  Ort::ThrowOnError(Ort::CompileModel(ort::SharedEnv(), compile));
  ASSERT_TRUE(std::filesystem::exists(model.parent_path() / data));
}

// Initializers kept in an external data file are handed to the plugin only for the Compile call (ORT maps them for
// it and unmaps them after); the partitions must still compute with them in every later run. ORT maps the same
// file regions again for the session, often at the addresses just released, so several initializers are used: a
// partition reading released addresses finds another initializer's data (or nothing) there.
TEST(SimNpuWeights, ExternalInitializersOutliveCompile) {
  test::TempDir dir;
  constexpr int64_t kRows = 256, kCols = 256;
  constexpr size_t kPairs = 4;
  std::vector<std::vector<float>> scales(kPairs), biases(kPairs);
  std::vector<float> x(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 2.0f;
  for (size_t p = 0; p < kPairs; ++p) {
    for (size_t i = 0; i < x.size(); ++i) {  // small integers: every result is exact in float
      scales[p].push_back(static_cast<float>((i + p) % 3) - 1.0f);
      biases[p].push_back(static_cast<float>((i * (p + 1)) % 11) - 5.0f);
    }
  }
  std::vector<float> expected = x;
  for (size_t p = 0; p < kPairs; ++p) {
    for (size_t i = 0; i < x.size(); ++i) expected[i] = expected[i] * scales[p][i] + biases[p][i];
  }
  const std::filesystem::path model = dir.path() / "scale_bias.onnx";
  WriteScaleBiasChain(model, scales, biases, kRows, kCols);

  Ort::SessionOptions options;
  options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  test::AppendSimNpu(options);
  Ort::Session session(ort::SharedEnv(), model.c_str(), options);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  const int64_t shape[] = {kRows, kCols};
  const int64_t runs_before = test::ReadSimNpuCounters().runs;
  for (int run = 0; run < 3; ++run) {
    Ort::Value input = Ort::Value::CreateTensor<float>(memory, x.data(), x.size(), shape, 2);
    const char* input_name = "x";
    const char* output_name = "y";
    std::vector<Ort::Value> outputs = session.Run(Ort::RunOptions{nullptr}, &input_name, &input, 1, &output_name, 1);
    const float* y = outputs[0].GetTensorData<float>();
    size_t mismatches = 0;
    for (size_t i = 0; i < x.size(); ++i) mismatches += y[i] != expected[i];
    EXPECT_EQ(mismatches, 0u) << "run " << run;
  }
  EXPECT_EQ(test::ReadSimNpuCounters().runs - runs_before, 3);
}

// With two NPU EPs in a session, the second claims only what the first left: nodes ORT already assigned are not
// grouped into its partitions (a group holding one would make ORT drop all of its groups).
TEST(SimNpuTwoEps, TheSecondEpTakesWhatTheFirstLeft) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions options;
  options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  test::AppendSimNpu(options, {{"op_allow", "MatMul"}}, kSimNpu2);
  test::AppendSimNpu(options);
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  for (const Ort::ConstEpAssignedSubgraph& subgraph : session.GetEpGraphAssignmentInfo()) {
    for (const Ort::ConstEpAssignedNode& node : subgraph.GetNodes()) {
      EXPECT_EQ(subgraph.GetEpName(), node.GetOperatorType() == "MatMul" ? kSimNpu2 : kSimNpu)
          << node.GetOperatorType();
    }
  }
  test::ExpectCaseOutputs(session, model_case);
}

// Concurrent runs of one session share its NPU partitions (inner sessions run concurrently too).
TEST(SimNpuThreads, ConcurrentRunsOfASplitModelAreCorrect) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions options;
  test::AppendSimNpu(options, {{"op_deny", "Softmax"}});
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  const int64_t runs_before = test::ReadSimNpuCounters().runs;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int run = 0; run < 10; ++run) test::ExpectCaseOutputs(session, model_case);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(test::ReadSimNpuCounters().runs - runs_before, 4 * 10 * 3) << "three partitions per run";
}

// Every partition of a split model runs once per session run.
TEST(SimNpuCounters, EachPartitionCountsItsRuns) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions options;
  test::AppendSimNpu(options, {{"op_deny", "Softmax"}});
  test::ResetSimNpuCounters();
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  for (int run = 0; run < 3; ++run) test::ExpectCaseOutputs(session, model_case);
  const int64_t partitions = test::ReadSimNpuCounters().compiled_partitions;
  EXPECT_EQ(partitions, 3) << "two Softmax nodes split the decoder into three partitions";
  std::map<std::string, int64_t> runs;
  for (const auto& [name, count] : test::ReadSimNpuPartitionRuns()) {
    if (count > 0) runs[name] = count;
  }
  EXPECT_EQ(static_cast<int64_t>(runs.size()), partitions);
  for (const auto& [name, count] : runs) EXPECT_EQ(count, 3) << name;
  EXPECT_EQ(test::ReadSimNpuCounters().runs, 3 * partitions);
}

TEST(SimNpuOptions, OpAllowLimitsTheClaimedOps) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions options;
  options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  test::AppendSimNpu(options, {{"op_allow", "MatMul,Add"}});
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  for (const Ort::ConstEpAssignedSubgraph& subgraph : session.GetEpGraphAssignmentInfo()) {
    if (subgraph.GetEpName() != kSimNpu) continue;
    for (const Ort::ConstEpAssignedNode& node : subgraph.GetNodes()) {
      EXPECT_TRUE(node.GetOperatorType() == "MatMul" || node.GetOperatorType() == "Add") << node.GetOperatorType();
    }
  }
  test::ExpectCaseOutputs(session, model_case);
}

// ORT puts provider options into the session config as "ep.<lower-case EP name>.<key>"; set there directly, they
// work the same.
TEST(SimNpuOptions, ReadFromSessionConfigEntries) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions options;
  options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  options.AddConfigEntry("ep.simnpuexecutionprovider.op_deny", "Softmax, LayerNormalization");
  test::AppendSimNpu(options);
  Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
  for (const Ort::ConstEpAssignedSubgraph& subgraph : session.GetEpGraphAssignmentInfo()) {
    for (const Ort::ConstEpAssignedNode& node : subgraph.GetNodes()) {
      const bool denied = node.GetOperatorType() == "Softmax" || node.GetOperatorType() == "LayerNormalization";
      EXPECT_EQ(subgraph.GetEpName() == kSimNpu, !denied) << node.GetOperatorType() << " on " << subgraph.GetEpName();
    }
  }
  test::ExpectCaseOutputs(session, model_case);
}

TEST(SimNpuOptions, BadValuesAreRejectedNamingTheKey) {
  const test::ModelCase model_case = test::LoadModelCase("matmul_add");
  for (const auto& [key, value] : {std::pair{"compile_delay_ms", "soon"}, std::pair{"fail_compile", "yes"}}) {
    Ort::SessionOptions options;
    test::AppendSimNpu(options, {{key, value}});
    try {
      Ort::Session session(ort::SharedEnv(), model_case.model.c_str(), options);
      ADD_FAILURE() << key << "=" << value << " was accepted";
    } catch (const Ort::Exception& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("ep.simnpuexecutionprovider.") + key), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace modelkit
