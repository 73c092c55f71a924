// What an ONNX benchmark run was asked to do and what it measured: the record the ONNX report is made from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/device_request.h"
#include "modelkit/report/placement.h"
#include "modelkit/report/tensor_spec.h"

namespace modelkit::report {

// Options; the defaults are the documented defaults.
struct OnnxPerfOptions {
  std::filesystem::path model;
  device::DeviceRequest device = device::DeviceRequest::Auto();
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
  // A requested EP that ORT gives fewer than all nodes fails the run (exit 4) instead of warning.
  bool fail_on_fallback = false;
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
  std::vector<std::vector<int64_t>> fed_shapes;     // the shapes of the tensors actually fed
  std::vector<std::vector<int64_t>> output_shapes;  // as produced
  int64_t effective_batch = 1;
  int priming_runs = 0;  // untimed runs made only to bind outputs (when warmup is 0)
  std::vector<int64_t> warmup_ns;
  std::vector<int64_t> samples_ns;  // timed iterations only
  double load_ms = 0;
  std::optional<SessionPlacement> placement;  // where ORT put the nodes; nullopt when ORT could not say
  MemoryCheckpoints memory;
  std::vector<std::string> warnings;
};

}  // namespace modelkit::report
