// The ONNX conformance suite (Debian's libonnx-testdata) through the simulated NPU: every case that passes on the CPU
// EP must pass with the simulated NPU appended. The skip list is computed, not typed: it is exactly the cases the
// CPU EP itself fails here (training and random ops, bfloat16 kernels ORT lacks, very old opsets) and the cases whose
// inputs or outputs are not tensors (sequences, optionals), which this harness does not feed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "modelkit/base/stderr_capture.h"
#include "modelkit/ort/runtime.h"
#include "support/sim_npu.h"
#include "support/tensor_proto.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;

const fs::path kSuiteRoot = "/usr/share/libonnx-testdata/data";

struct DataSet {
  std::vector<test::TensorProtoData> inputs;
  std::vector<test::TensorProtoData> outputs;
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

// Loads a case; std::nullopt (with `why`) when a data file is not a TensorProto this harness reads.
std::optional<ConformanceCase> LoadCase(const fs::path& dir, std::string& why) {
  ConformanceCase result;
  result.name = dir.parent_path().filename().string() + "/" + dir.filename().string();
  result.model = dir / "model.onnx";
  if (!fs::exists(result.model)) {
    why = "no model.onnx";
    return std::nullopt;
  }
  for (const fs::path& set_dir : SortedEntries(dir, "test_data_set_")) {
    DataSet set;
    for (const auto& [prefix, list] : {std::pair{"input_", &set.inputs}, std::pair{"output_", &set.outputs}}) {
      for (const fs::path& file : SortedEntries(set_dir, prefix)) {
        std::optional<test::TensorProtoData> tensor = test::ReadTensorProto(file, &why);
        if (!tensor) return std::nullopt;
        list->push_back(std::move(*tensor));
      }
    }
    result.data_sets.push_back(std::move(set));
  }
  if (result.data_sets.empty()) {
    why = "no test data";
    return std::nullopt;
  }
  return result;
}

// Runs every data set of the case in a session made with `options`. Returns "" when all outputs match.
std::string RunCase(const ConformanceCase& conformance_case, const Ort::SessionOptions& options) {
  try {
    Ort::Session session(ort::SharedEnv(), conformance_case.model.c_str(), options);
    for (size_t i = 0; i < session.GetInputCount(); ++i) {
      if (session.GetInputTypeInfo(i).GetONNXType() != ONNX_TYPE_TENSOR) return "non-tensor input";
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i) {
      if (session.GetOutputTypeInfo(i).GetONNXType() != ONNX_TYPE_TENSOR) return "non-tensor output";
    }
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<std::string> input_names, output_names;
    for (size_t i = 0; i < session.GetInputCount(); ++i) {
      input_names.push_back(session.GetInputNameAllocated(i, allocator).get());
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i) {
      output_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
    }
    for (DataSet set : conformance_case.data_sets) {
      if (set.inputs.size() > input_names.size() || set.outputs.size() > output_names.size()) {
        return "data set does not match the model's inputs and outputs";
      }
      std::vector<Ort::Value> inputs;
      std::vector<const char*> inputs_fed;
      for (size_t i = 0; i < set.inputs.size(); ++i) {
        // An empty name in a data set means the input is fed by position.
        inputs.push_back(test::ToOrtValue(set.inputs[i]));
        inputs_fed.push_back(input_names[i].c_str());
      }
      std::vector<const char*> outputs_wanted;
      for (size_t i = 0; i < set.outputs.size(); ++i) outputs_wanted.push_back(output_names[i].c_str());
      std::vector<Ort::Value> outputs = session.Run(Ort::RunOptions{nullptr}, inputs_fed.data(), inputs.data(),
                                                    inputs.size(), outputs_wanted.data(), outputs_wanted.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (std::string problem = test::CompareTensor(outputs[i], set.outputs[i]); !problem.empty()) {
          return "output '" + output_names[i] + "': " + problem;
        }
      }
    }
    return "";
  } catch (const Ort::Exception& error) {
    std::string message = error.what();
    return message.substr(0, message.find('\n'));
  }
}

TEST(OnnxConformance, EveryCaseThatPassesOnCpuAlsoPassesWithTheSimulatedNpu) {
  if (!fs::exists(kSuiteRoot)) GTEST_SKIP() << "libonnx-testdata is not installed (scripts/setup.sh installs it)";
  test::RegisterSimNpu();
  std::vector<fs::path> case_dirs;
  for (const char* group : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const auto& entry : fs::directory_iterator(kSuiteRoot / group)) case_dirs.push_back(entry.path());
  }
  std::sort(case_dirs.begin(), case_dirs.end());
  ASSERT_GT(case_dirs.size(), 1000u);

  Ort::SessionOptions cpu_options;
  Ort::SessionOptions npu_options;
  test::AppendSimNpu(npu_options);

  size_t unreadable = 0, cpu_passed = 0, npu_passed = 0, npu_used = 0;
  std::vector<std::string> regressions;
  for (const fs::path& dir : case_dirs) {
    std::string why;
    const std::optional<ConformanceCase> conformance_case = LoadCase(dir, why);
    if (!conformance_case) {
      ++unreadable;
      continue;
    }
    std::string cpu_result, npu_result;
    int64_t claimed = 0;
    {
      // ORT and its kernels print warnings for cases they reject; the summary reports what matters.
      StderrCapture quiet;
      cpu_result = RunCase(*conformance_case, cpu_options);
      if (!cpu_result.empty()) continue;
      const int64_t claimed_before = test::ReadSimNpuCounters().claimed_nodes;
      npu_result = RunCase(*conformance_case, npu_options);
      claimed = test::ReadSimNpuCounters().claimed_nodes - claimed_before;
    }
    ++cpu_passed;
    if (claimed > 0) ++npu_used;
    if (npu_result.empty()) {
      ++npu_passed;
    } else {
      regressions.push_back(conformance_case->name + ": " + npu_result);
    }
  }
  std::cout << "ONNX conformance: " << case_dirs.size() << " cases, " << unreadable
            << " with data this harness does not read; " << cpu_passed << " passed on the CPU EP, " << npu_passed
            << " passed with the simulated NPU (" << npu_used << " of them ran nodes on the NPU)" << std::endl;
  for (const std::string& regression : regressions)
    ADD_FAILURE() << "fails only with the simulated NPU: " << regression;
  EXPECT_EQ(npu_passed, cpu_passed);
  EXPECT_GT(npu_used, cpu_passed * 9 / 10) << "the simulated NPU should take most cases";
}

}  // namespace
}  // namespace modelkit
