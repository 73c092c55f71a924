// The ONNX conformance suite (Debian's libonnx-testdata) through the simulated NPU: every case that passes on the CPU
// EP must pass with the simulated NPU appended. The skip list is computed, not typed: it is exactly the cases the
// CPU EP itself fails here (training and random ops, bfloat16 kernels ORT lacks, very old opsets) and the few cases
// whose data this harness cannot feed (maps, empty sequences). The same cases also run compiled by the simulated NPU
// into EPContext models.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "modelkit/base/stderr_capture.h"
#include "modelkit/ort/runtime.h"
#include "support/sim_npu.h"
#include "support/temp_dir.h"
#include "support/tensor_proto.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;

const fs::path kSuiteRoot = "/usr/share/libonnx-testdata/data";

// The serialised values of one test_data_set_N; how to parse each depends on the model's input and output types.
struct DataSet {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

struct ConformanceCase {
  std::string name;  // "node/test_abs"
  fs::path model;
  std::vector<DataSet> data_sets;
};

std::vector<fs::path> SortedEntries(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) entries.push_back(entry.path());
  }
  // input_10.pb sorts after input_9.pb
  std::sort(entries.begin(), entries.end(), [](const fs::path& a, const fs::path& b) {
    const std::string x = a.stem().string(), y = b.stem().string();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  return entries;
}

std::string ReadBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

ConformanceCase LoadCase(const fs::path& dir) {
  ConformanceCase result;
  result.name = dir.parent_path().filename().string() + "/" + dir.filename().string();
  result.model = dir / "model.onnx";
  for (const fs::path& set_dir : SortedEntries(dir, "test_data_set_")) {
    DataSet set;
    for (const fs::path& file : SortedEntries(set_dir, "input_")) set.inputs.push_back(ReadBytes(file));
    for (const fs::path& file : SortedEntries(set_dir, "output_")) set.outputs.push_back(ReadBytes(file));
    result.data_sets.push_back(std::move(set));
  }
  return result;
}

struct CaseResult {
  bool readable = true;  // false: the data is in a form this harness cannot feed or compare
  std::string failure;   // "" when every data set passed
  bool passed() const { return readable && failure.empty(); }
};

CaseResult Unreadable(std::string why) { return {false, std::move(why)}; }

// Runs every data set of the case in a session made with `options`.
CaseResult RunCase(const ConformanceCase& conformance_case, const Ort::SessionOptions& options) {
  if (!fs::exists(conformance_case.model)) return Unreadable("no model.onnx");
  if (conformance_case.data_sets.empty()) return Unreadable("no test data");
  try {
    Ort::Session session(ort::SharedEnv(), conformance_case.model.c_str(), options);
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<std::string> input_names, output_names;
    std::vector<ONNXType> input_types, output_types;
    for (size_t i = 0; i < session.GetInputCount(); ++i) {
      input_names.push_back(session.GetInputNameAllocated(i, allocator).get());
      input_types.push_back(session.GetInputTypeInfo(i).GetONNXType());
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i) {
      output_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
      output_types.push_back(session.GetOutputTypeInfo(i).GetONNXType());
    }
    for (const DataSet& set : conformance_case.data_sets) {
      if (set.inputs.size() > input_names.size() || set.outputs.size() > output_names.size()) {
        return Unreadable("data set does not match the model's inputs and outputs");
      }
      std::vector<test::ProtoValue> input_values, expected;
      std::string why;
      for (size_t i = 0; i < set.inputs.size(); ++i) {
        std::optional<test::ProtoValue> value = test::ParseValueProto(set.inputs[i], input_types[i], &why);
        if (!value) return Unreadable("input " + std::to_string(i) + ": " + why);
        input_values.push_back(std::move(*value));
      }
      for (size_t i = 0; i < set.outputs.size(); ++i) {
        std::optional<test::ProtoValue> value = test::ParseValueProto(set.outputs[i], output_types[i], &why);
        if (!value) return Unreadable("output " + std::to_string(i) + ": " + why);
        expected.push_back(std::move(*value));
      }
      // Inputs are fed by position; an empty optional is not fed at all.
      std::vector<Ort::Value> inputs;
      std::vector<const char*> inputs_fed;
      for (size_t i = 0; i < input_values.size(); ++i) {
        if (input_values[i].kind == test::ProtoValue::Kind::kNone) continue;
        if (input_values[i].kind == test::ProtoValue::Kind::kSequence && input_values[i].sequence.empty()) {
          return Unreadable("an empty sequence input cannot be created through the C API");
        }
        inputs.push_back(test::ToOrtValue(input_values[i]));
        inputs_fed.push_back(input_names[i].c_str());
      }
      std::vector<const char*> outputs_wanted;
      for (size_t i = 0; i < expected.size(); ++i) outputs_wanted.push_back(output_names[i].c_str());
      std::vector<Ort::Value> outputs = session.Run(Ort::RunOptions{nullptr}, inputs_fed.data(), inputs.data(),
                                                    inputs.size(), outputs_wanted.data(), outputs_wanted.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (std::string problem = test::CompareValue(outputs[i], expected[i]); !problem.empty()) {
          return {true, "output '" + output_names[i] + "': " + problem};
        }
      }
    }
    return {};
  } catch (const Ort::Exception& error) {
    std::string message = error.what();
    return {true, message.substr(0, message.find('\n'))};
  }
}

// The readable cases of the suite and which of them pass on the CPU EP.
struct Suite {
  size_t total = 0;
  size_t unreadable = 0;
  std::vector<ConformanceCase> cpu_passing;
};

Suite LoadSuite() {
  Suite suite;
  std::vector<fs::path> case_dirs;
  for (const char* group : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const auto& entry : fs::directory_iterator(kSuiteRoot / group)) case_dirs.push_back(entry.path());
  }
  std::sort(case_dirs.begin(), case_dirs.end());
  suite.total = case_dirs.size();
  const Ort::SessionOptions cpu_options;
  for (const fs::path& dir : case_dirs) {
    ConformanceCase conformance_case = LoadCase(dir);
    CaseResult result;
    {
      // ORT and its kernels print warnings for cases they reject; the summary reports what matters.
      StderrCapture quiet;
      result = RunCase(conformance_case, cpu_options);
    }
    if (!result.readable) {
      ++suite.unreadable;
    } else if (result.failure.empty()) {
      suite.cpu_passing.push_back(std::move(conformance_case));
    }
  }
  return suite;
}

class OnnxConformance : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kSuiteRoot)) << "libonnx-testdata is not installed (scripts/setup.sh installs it)";
    suite_ = LoadSuite();
    ASSERT_GT(suite_.total, 1000u);
    ASSERT_GT(suite_.cpu_passing.size(), 900u);
  }

  Suite suite_;
};

TEST_F(OnnxConformance, EveryCaseThatPassesOnCpuAlsoPassesWithTheSimulatedNpu) {
  Ort::SessionOptions npu_options;
  test::AppendSimNpu(npu_options);
  size_t npu_passed = 0, npu_used = 0;
  for (const ConformanceCase& conformance_case : suite_.cpu_passing) {
    const int64_t claimed_before = test::ReadSimNpuCounters().claimed_nodes;
    CaseResult result;
    {
      StderrCapture quiet;
      result = RunCase(conformance_case, npu_options);
    }
    npu_used += test::ReadSimNpuCounters().claimed_nodes > claimed_before;
    if (result.passed()) {
      ++npu_passed;
    } else {
      ADD_FAILURE() << "fails only with the simulated NPU: " << conformance_case.name << ": " << result.failure;
    }
  }
  std::cout << "ONNX conformance: " << suite_.total << " cases, " << suite_.unreadable
            << " with data this harness does not read; " << suite_.cpu_passing.size() << " passed on the CPU EP, "
            << npu_passed << " passed with the simulated NPU (" << npu_used << " of them ran nodes on the NPU)"
            << std::endl;
  EXPECT_EQ(npu_passed, suite_.cpu_passing.size());
  EXPECT_GT(npu_used, suite_.cpu_passing.size() * 9 / 10) << "the simulated NPU should take most cases";
}

// Compiles `source` into `output` (embedded context) with `options` and runs the result with `load_options`.
// Returns "" when every data set passes.
std::string CompileAndRun(const ConformanceCase& conformance_case, const fs::path& output,
                          const Ort::SessionOptions& options, const Ort::SessionOptions& load_options) {
  Ort::ModelCompilationOptions compile(ort::SharedEnv(), options);
  compile.SetInputModelPath(conformance_case.model.c_str());
  compile.SetOutputModelPath(output.c_str());
  compile.SetEpContextEmbedMode(true);
  const Ort::Status status = Ort::CompileModel(ort::SharedEnv(), compile);
  if (!status.IsOK()) return "compiling: " + status.GetErrorMessage();
  ConformanceCase compiled_case = conformance_case;
  compiled_case.model = output;
  const CaseResult result = RunCase(compiled_case, load_options);
  return result.passed() ? "" : result.failure;
}

// Every CPU-passing case compiled by the simulated NPU into an EPContext model (embedded context) runs from the
// compiled model alone with the same results — except where the compile API cannot round-trip the model even with
// the CPU EP alone (computed here: ORT 1.30 writes If/Loop bodies whose constants clash as initializers).
TEST_F(OnnxConformance, EveryCaseThatPassesOnCpuAlsoPassesCompiledToAnEpContextModel) {
  test::TempDir dir;
  Ort::SessionOptions npu_options;
  test::AppendSimNpu(npu_options);
  const Ort::SessionOptions cpu_options;
  size_t index = 0, passed = 0, with_context = 0;
  std::vector<std::string> ort_limits;
  for (const ConformanceCase& conformance_case : suite_.cpu_passing) {
    const fs::path output = dir.path() / (std::to_string(index++) + ".onnx");
    std::string result;
    {
      StderrCapture quiet;
      result = CompileAndRun(conformance_case, output, npu_options, npu_options);
    }
    if (result.empty()) {
      ++passed;
      with_context += ReadBytes(output).find("SIMNPU-CONTEXT") != std::string::npos;
    } else {
      std::string cpu_result;
      {
        StderrCapture quiet;
        cpu_result = CompileAndRun(conformance_case, dir.path() / "cpu_only.onnx", cpu_options, cpu_options);
      }
      if (cpu_result.empty()) {
        ADD_FAILURE() << "fails compiled by the simulated NPU: " << conformance_case.name << ": " << result;
      } else {
        ort_limits.push_back(conformance_case.name);
      }
    }
    fs::remove(output);
  }
  std::cout << "ONNX conformance compiled to EPContext models: " << passed << " of " << suite_.cpu_passing.size()
            << " passed (" << with_context << " with NPU context nodes); " << ort_limits.size()
            << " fail the compile API round trip with the CPU EP alone too:";
  for (const std::string& name : ort_limits) std::cout << " " << name;
  std::cout << std::endl;
  EXPECT_EQ(passed + ort_limits.size(), suite_.cpu_passing.size());
  EXPECT_LT(ort_limits.size(), 10u);
  EXPECT_GT(with_context, suite_.cpu_passing.size() * 9 / 10);
}

}  // namespace
}  // namespace modelkit
