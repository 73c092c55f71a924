// The simulated NPU plugin (plugins/sim_npu) in tests: registered with the shared ORT env once per process, under two
// registration names so tests can prove that what one EP compiled is never run by the other.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace modelkit::test {

inline constexpr const char* kSimNpu = "SimNpuExecutionProvider";    // registered as "SimNpu.virtual"
inline constexpr const char* kSimNpu2 = "SimNpu2ExecutionProvider";  // registered as "SimNpu2.virtual"

// The built libsim_npu.so (absolute).
std::filesystem::path SimNpuLibrary();

// Registers the library with modelkit::ort::SharedEnv() under "SimNpu.virtual" and "SimNpu2.virtual", once per
// process; later calls do nothing. Fails the test when registration fails. A global test environment calls it
// before the first test of every program linking this helper.
void RegisterSimNpu();

// The EP devices ORT lists for `ep_name` (registers first).
std::vector<Ort::ConstEpDevice> SimNpuDevices(const std::string& ep_name = kSimNpu);

// Appends the simulated NPU `ep_name` to `options` with provider `ep_options` (AppendExecutionProvider_V2).
void AppendSimNpu(Ort::SessionOptions& options, const std::map<std::string, std::string>& ep_options = {},
                  const std::string& ep_name = kSimNpu);

// The library's counters (sim_npu.h), read through dlsym on the loaded library.
struct SimNpuCounters {
  int64_t runs = 0;                 // partition executions
  int64_t compiled_partitions = 0;  // partitions compiled from source nodes
  int64_t loaded_contexts = 0;      // partitions restored from EPContext nodes
  int64_t claimed_nodes = 0;        // nodes claimed in GetCapability
};
SimNpuCounters ReadSimNpuCounters(const std::string& ep_name = kSimNpu);
// Runs per partition (by fused node name) of `ep_name`.
std::map<std::string, int64_t> ReadSimNpuPartitionRuns(const std::string& ep_name = kSimNpu);
void ResetSimNpuCounters();

// Node counts per EP name of a session created with session.record_ep_graph_assignment_info=1.
std::map<std::string, size_t> NodesPerEp(const Ort::Session& session);

}  // namespace modelkit::test
