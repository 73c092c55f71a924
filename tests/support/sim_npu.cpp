#include "support/sim_npu.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <mutex>
#include <sstream>

#include "modelkit/device/discovery.h"
#include "modelkit/device/plugin_libraries.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::test {
namespace {

void* LibraryHandle() {
  RegisterSimNpu();
  static void* handle = dlopen(SimNpuLibrary().c_str(), RTLD_NOW | RTLD_NOLOAD);
  return handle;
}

template <typename Fn>
Fn Symbol(const char* name) {
  void* handle = LibraryHandle();
  if (handle == nullptr) {
    ADD_FAILURE() << "libsim_npu.so is not loaded: " << dlerror();
    return nullptr;
  }
  auto fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr) ADD_FAILURE() << "libsim_npu.so does not export " << name;
  return fn;
}

int64_t Counter(const char* function, const std::string& ep_name) {
  using CounterFn = int64_t (*)(const char*);
  CounterFn fn = Symbol<CounterFn>(function);
  return fn == nullptr ? -1 : fn(ep_name.c_str());
}

// Every test program linking this helper initialises ORT's API and registers the plugin before its first test, so a
// test may create Ort objects (compiled with ORT_API_MANUAL_INIT) from its first line.
class SimNpuEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { RegisterSimNpu(); }
};

[[maybe_unused]] const ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new SimNpuEnvironment);

}  // namespace

std::filesystem::path SimNpuLibrary() { return MODELKIT_SIM_NPU_LIBRARY; }

void RegisterSimNpu() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    // Through modelkit's discovery, which remembers what it registered: code under test that discovers the
    // machine with the same plugins later (a GenaiSession) then finds them registered instead of failing.
    try {
      std::vector<device::PluginLibrary> plugins;
      for (const char* name : {"SimNpu.virtual", "SimNpu2.virtual"}) {
        plugins.push_back(device::ParsePluginSpec(std::string(name) + "=" + SimNpuLibrary().string(), "tests"));
      }
      device::OrtDiscovery discovery(plugins);
      const device::Inventory inventory = discovery.Discover(device::EpCatalog::BuiltIn());
      for (const char* name : {kSimNpu, kSimNpu2}) {
        const device::EpStatus* status = inventory.FindEp(name);
        if (status == nullptr || !status->usable) failure += std::string(name) + " is not usable after registration. ";
      }
    } catch (const std::exception& error) {
      failure = error.what();
    }
  });
  ASSERT_EQ(failure, "") << "registering " << SimNpuLibrary();
}

std::vector<Ort::ConstEpDevice> SimNpuDevices(const std::string& ep_name) {
  RegisterSimNpu();
  std::vector<Ort::ConstEpDevice> devices;
  for (const Ort::ConstEpDevice& device : ort::SharedEnv().GetEpDevices()) {
    if (device.EpName() == ep_name) devices.push_back(device);
  }
  return devices;
}

void AppendSimNpu(Ort::SessionOptions& options, const std::map<std::string, std::string>& ep_options,
                  const std::string& ep_name) {
  const std::vector<Ort::ConstEpDevice> devices = SimNpuDevices(ep_name);
  ASSERT_EQ(devices.size(), 1u) << ep_name;
  options.AppendExecutionProvider_V2(
      ort::SharedEnv(), devices, std::unordered_map<std::string, std::string>(ep_options.begin(), ep_options.end()));
}

SimNpuCounters ReadSimNpuCounters(const std::string& ep_name) {
  SimNpuCounters counters;
  counters.runs = Counter("SimNpuGetRunCount", ep_name);
  counters.compiled_partitions = Counter("SimNpuGetCompiledPartitionCount", ep_name);
  counters.loaded_contexts = Counter("SimNpuGetLoadedContextCount", ep_name);
  counters.claimed_nodes = Counter("SimNpuGetClaimedNodeCount", ep_name);
  return counters;
}

std::map<std::string, int64_t> ReadSimNpuPartitionRuns(const std::string& ep_name) {
  using DescribeFn = size_t (*)(const char*, char*, size_t);
  std::map<std::string, int64_t> runs;
  DescribeFn describe = Symbol<DescribeFn>("SimNpuDescribePartitionRuns");
  if (describe == nullptr) return runs;
  std::string text(describe(ep_name.c_str(), nullptr, 0) + 1, '\0');
  text.resize(describe(ep_name.c_str(), text.data(), text.size()));
  std::istringstream lines(text);
  std::string name;
  int64_t count = 0;
  while (lines >> name >> count) runs[name] = count;
  return runs;
}

void ResetSimNpuCounters() {
  using ResetFn = void (*)();
  if (ResetFn fn = Symbol<ResetFn>("SimNpuResetCounters")) fn();
}

std::map<std::string, size_t> NodesPerEp(const Ort::Session& session) {
  std::map<std::string, size_t> counts;
  for (const Ort::ConstEpAssignedSubgraph& subgraph : session.GetEpGraphAssignmentInfo()) {
    counts[subgraph.GetEpName()] += subgraph.GetNodes().size();
  }
  return counts;
}

}  // namespace modelkit::test
