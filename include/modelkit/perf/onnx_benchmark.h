// `modelkit perf --runtime onnx`: benchmark one ONNX model on the resolved EP with a harness that adds nothing
// measurable: inputs made once outside timing, inputs and outputs bound once (IoBinding with preallocated
// outputs), and only the Run call timed.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/machine.h"
#include "modelkit/perf/host_tensor.h"
#include "modelkit/perf/tensor_spec.h"

namespace modelkit::perf {

// Options; the defaults are the documented defaults.
struct OnnxPerfOptions {
  std::filesystem::path model;
  std::string device = "auto";
  std::string ep;                                 // empty: resolve from --device
  std::map<std::string, std::string> ep_options;  // forwarded to the EP
  int iterations = 100;
  int warmup = 10;
  std::optional<double> duration_s;  // time-boxed run instead of a count
  int64_t batch_size = 1;
  bool batch_size_given = false;
  std::optional<std::filesystem::path> shape_config;
  std::optional<std::filesystem::path> input_data;  // .npz
  bool memory = true;
  int intra_op_threads = 0;  // 0: ORT's default
};

// Memory checkpoints in MiB (RSS).
struct MemoryCheckpoints {
  std::optional<double> baseline;
  std::optional<double> after_load;
  std::optional<double> after_inference;
};

struct OnnxPerfResult {
  std::string ep_name;
  std::string ep_alias;
  std::string resolved_device;
  std::vector<TensorSpec> inputs;  // as declared by the model
  std::vector<TensorSpec> outputs;
  std::vector<HostTensor> fed;                      // the tensors actually fed (shapes and types)
  std::vector<std::vector<int64_t>> output_shapes;  // as produced
  int64_t effective_batch = 1;
  int priming_runs = 0;  // untimed runs made only to bind outputs (when warmup is 0)
  std::vector<double> warmup_ms;
  std::vector<double> samples_ms;  // timed iterations only
  double load_ms = 0;
  MemoryCheckpoints memory;
  std::vector<std::string> warnings;
};

// Called after each warm-up or timed iteration (done, total; total 0 when time-boxed) for progress display.
using ProgressCallback = std::function<void(int done, int total)>;

// Runs the benchmark. Throws modelkit::Error: UsageError for bad options or an unavailable device/EP,
// Error(kInvalidModel) when ORT cannot parse the model, RuntimeError for load failures, Error(kInferenceFailed)
// when a Run fails after a successful load.
OnnxPerfResult RunOnnxBenchmark(const OnnxPerfOptions& options, const device::Machine& machine,
                                const ProgressCallback& progress = {});

}  // namespace modelkit::perf
