// modelkit's public C++ API (docs/library.md): benchmark one ONNX model, as `modelkit perf -m model.onnx` does, and
// get the measurements and the same report JSON (docs/report-schema.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "modelkit/api/machine.h"

namespace modelkit {

// The defaults are `modelkit perf`'s.
struct OnnxBenchmarkOptions {
  std::filesystem::path model;
  std::string device = "auto";                    // "auto", "npu", "gpu" or "cpu"
  std::string ep;                                 // an EP name or alias; empty: resolved from `device`
  std::map<std::string, std::string> ep_options;  // provider options passed to the EP
  int iterations = 100;
  int warmup = 10;
  int64_t batch_size = 1;    // the size of dynamic batch dimensions
  int intra_op_threads = 0;  // 0: ONNX Runtime's default
};

struct OnnxBenchmarkResult {
  std::string ep;                   // the EP that ran, ONNX Runtime's name
  std::string device;               // "npu", "gpu" or "cpu"
  std::vector<int64_t> samples_ns;  // one per timed iteration: the Run call alone
  double load_ms = 0;
  std::vector<std::string> warnings;
  std::string report_json;  // the report `modelkit perf` writes for the same run
};

// Runs the benchmark on `machine`. Throws modelkit::Error: UsageError for bad options or an EP/device not usable here,
// Error(kInvalidModel) for a model ONNX Runtime cannot parse, RuntimeError when it cannot load, Error(kInferenceFailed)
// when a Run fails.
OnnxBenchmarkResult RunOnnxBenchmark(const OnnxBenchmarkOptions& options, Machine& machine);

}  // namespace modelkit
