// The library's exported functions: ORT's plugin entry points and the counters of sim_npu.h. Everything else in the
// library is hidden (-fvisibility=hidden).
#include <algorithm>
#include <cstring>
#include <exception>

#include "api.h"
#include "ep_name.h"
#include "factory.h"
#include "run_counters.h"
#include "sim_npu.h"

#define SIM_NPU_EXPORT extern "C" __attribute__((visibility("default")))

SIM_NPU_EXPORT OrtStatus* CreateEpFactories(const char* registration_name, const OrtApiBase* api_base,
                                            const OrtLogger* /*default_logger*/, OrtEpFactory** factories,
                                            size_t max_factories, size_t* num_factories) {
  if (!sim_npu::InitApis(api_base)) {
    const OrtApi* any = api_base->GetApi(1);
    return any->CreateStatus(ORT_FAIL, "the simulated NPU needs a newer ONNX Runtime (plugin EP API version 24+)");
  }
  return sim_npu::Guard([&] {
    *num_factories = 0;
    if (max_factories < 1) throw Ort::Exception("no room for the simulated NPU's factory", ORT_INVALID_ARGUMENT);
    factories[0] = new sim_npu::SimNpuFactory(sim_npu::EpNameFromRegistration(registration_name));
    *num_factories = 1;
  });
}

SIM_NPU_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  delete static_cast<sim_npu::SimNpuFactory*>(factory);
  return nullptr;
}

SIM_NPU_EXPORT int64_t SimNpuGetRunCount(const char* ep_name) {
  return sim_npu::CountersFor(ep_name).partition_runs.load();
}

SIM_NPU_EXPORT int64_t SimNpuGetCompiledPartitionCount(const char* ep_name) {
  return sim_npu::CountersFor(ep_name).partitions_compiled.load();
}

SIM_NPU_EXPORT int64_t SimNpuGetLoadedContextCount(const char* ep_name) {
  return sim_npu::CountersFor(ep_name).contexts_loaded.load();
}

SIM_NPU_EXPORT int64_t SimNpuGetClaimedNodeCount(const char* ep_name) {
  return sim_npu::CountersFor(ep_name).nodes_claimed.load();
}

SIM_NPU_EXPORT size_t SimNpuDescribePartitionRuns(const char* ep_name, char* buffer, size_t buffer_size) {
  const std::string text = sim_npu::CountersFor(ep_name).DescribePartitionRuns();
  if (buffer != nullptr && buffer_size > 0) {
    const size_t copied = std::min(text.size(), buffer_size - 1);
    std::memcpy(buffer, text.data(), copied);
    buffer[copied] = '\0';
  }
  return text.size();
}

SIM_NPU_EXPORT void SimNpuResetCounters(void) { sim_npu::ResetAllCounters(); }
