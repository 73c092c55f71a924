// A compiled partition: an inner CPU session running the partition's model, and the compute function ORT calls for
// the fused node (OrtNodeComputeInfo).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <memory>
#include <string>
#include <vector>

#include "run_counters.h"

namespace sim_npu {

class CompiledPartition {
 public:
  // `fused_input_names` / `fused_output_names`: the fused node's inputs and outputs in ORT's order. Inputs the inner
  // session does not take (constant initializers baked into its model) are skipped. Runs are counted in `counters`
  // under `partition_name`. Throws Ort::Exception when an output or a required input of the inner session has no
  // counterpart on the fused node. Each run then waits `run_delay_percent` of its own duration (a slower device).
  CompiledPartition(Ort::Session session, const std::string& partition_name,
                    const std::vector<std::string>& fused_input_names, std::vector<std::string> fused_output_names,
                    EpCounters& counters, int run_delay_percent = 0);

  // Runs the inner session on the kernel context's inputs and copies its outputs into the context's outputs.
  void Run(OrtKernelContext* context);

 private:
  Ort::Session session_;
  std::vector<std::string> input_names_;   // the inner session's inputs
  std::vector<size_t> input_slots_;        // for each of them, the fused node input index
  std::vector<std::string> output_names_;  // the fused node's outputs == the inner session's outputs
  std::vector<const char*> input_name_ptrs_;
  std::vector<const char*> output_name_ptrs_;
  EpCounters& counters_;
  std::atomic<int64_t>& runs_;
  int run_delay_percent_;
};

// The OrtNodeComputeInfo ORT receives from Compile; owns its partition (null in a compile-only session, which never
// runs). Released by SimNpuEp's ReleaseNodeComputeInfos.
struct PartitionComputeInfo : OrtNodeComputeInfo {
  explicit PartitionComputeInfo(std::unique_ptr<CompiledPartition> partition);
  std::unique_ptr<CompiledPartition> partition;
};

}  // namespace sim_npu
