#include "compiled_partition.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "api.h"
#include "tensor_copy.h"

namespace sim_npu {

CompiledPartition::CompiledPartition(Ort::Session session, const std::string& partition_name,
                                     const std::vector<std::string>& fused_input_names,
                                     std::vector<std::string> fused_output_names, EpCounters& counters,
                                     int run_delay_percent)
    : session_(std::move(session)),
      output_names_(std::move(fused_output_names)),
      counters_(counters),
      runs_(counters.RunsOf(partition_name)),
      run_delay_percent_(run_delay_percent) {
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session_.GetInputCount(); ++i) {
    std::string name = session_.GetInputNameAllocated(i, allocator).get();
    const auto found = std::find(fused_input_names.begin(), fused_input_names.end(), name);
    if (found == fused_input_names.end()) {
      throw Ort::Exception("the compiled partition needs input '" + name + "', which its node does not have",
                           ORT_INVALID_GRAPH);
    }
    input_slots_.push_back(static_cast<size_t>(found - fused_input_names.begin()));
    input_names_.push_back(std::move(name));
  }
  std::vector<std::string> inner_outputs;
  for (size_t i = 0; i < session_.GetOutputCount(); ++i) {
    inner_outputs.push_back(session_.GetOutputNameAllocated(i, allocator).get());
  }
  for (const std::string& name : output_names_) {
    if (std::find(inner_outputs.begin(), inner_outputs.end(), name) == inner_outputs.end()) {
      throw Ort::Exception("the compiled partition does not produce output '" + name + "'", ORT_INVALID_GRAPH);
    }
  }
  for (const std::string& name : input_names_) input_name_ptrs_.push_back(name.c_str());
  for (const std::string& name : output_names_) output_name_ptrs_.push_back(name.c_str());
}

void CompiledPartition::Run(OrtKernelContext* context) {
  const Ort::KernelContext kernel(context);
  // Inputs are handed over without copying: the inner session only reads them.
  std::vector<const OrtValue*> inputs;
  inputs.reserve(input_slots_.size());
  for (size_t slot : input_slots_) {
    const OrtValue* value = kernel.GetInput(slot);
    if (value == nullptr) {
      throw Ort::Exception("input '" + input_names_[inputs.size()] + "' of the partition was not provided",
                           ORT_INVALID_ARGUMENT);
    }
    inputs.push_back(value);
  }
  std::vector<OrtValue*> outputs(output_names_.size(), nullptr);
  const auto start = std::chrono::steady_clock::now();
  Ort::ThrowOnError(Ort::GetApi().Run(session_, nullptr, input_name_ptrs_.data(), inputs.data(), inputs.size(),
                                      output_name_ptrs_.data(), output_name_ptrs_.size(), outputs.data()));
  std::vector<Ort::Value> owned;
  for (OrtValue* value : outputs) owned.emplace_back(value);
  for (size_t i = 0; i < owned.size(); ++i) {
    const std::vector<int64_t> shape = owned[i].GetTensorTypeAndShapeInfo().GetShape();
    Ort::UnownedValue target = kernel.GetOutput(i, shape);
    CopyTensorData(owned[i], target);
  }
  if (run_delay_percent_ > 0) {
    std::this_thread::sleep_for((std::chrono::steady_clock::now() - start) * run_delay_percent_ / 100);
  }
  ++counters_.partition_runs;
  ++runs_;
}

namespace {

OrtStatus* ORT_API_CALL CreateStateImpl(OrtNodeComputeInfo* self, OrtNodeComputeContext*, void** state) noexcept {
  *state = static_cast<PartitionComputeInfo*>(self)->partition.get();
  return nullptr;
}

OrtStatus* ORT_API_CALL ComputeImpl(OrtNodeComputeInfo*, void* state, OrtKernelContext* context) noexcept {
  if (state == nullptr) return MakeStatus(ORT_EP_FAIL, "the partition was compiled by a compile-only session");
  return Guard([&] { static_cast<CompiledPartition*>(state)->Run(context); });
}

void ORT_API_CALL ReleaseStateImpl(OrtNodeComputeInfo*, void*) noexcept {}

}  // namespace

PartitionComputeInfo::PartitionComputeInfo(std::unique_ptr<CompiledPartition> compiled)
    : OrtNodeComputeInfo{}, partition(std::move(compiled)) {
  ort_version_supported = ORT_API_VERSION;
  CreateState = CreateStateImpl;
  Compute = ComputeImpl;
  ReleaseState = ReleaseStateImpl;
}

}  // namespace sim_npu
