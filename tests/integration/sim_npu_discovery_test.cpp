// modelkit's own discovery and resolution with the simulated NPU registered through a plugin catalog, the way the
// CLI registers it: --device npu and --device auto resolve to it, and --ep simnpu / simnpu2 name its two EPs.
// (A separate program from the other simulated NPU tests: discovery registers the library itself.)
#include <gtest/gtest.h>

#include "modelkit/device/machine.h"
#include "modelkit/device/plugin_libraries.h"

namespace modelkit {
namespace {

TEST(SimNpuDiscovery, NpuAndAutoResolveToTheSimulatedNpu) {
  const std::filesystem::path catalog_file =
      std::filesystem::path(MODELKIT_SIM_NPU_LIBRARY).parent_path() / "sim_npu_catalog.json";
  const std::vector<device::PluginLibrary> plugins = device::CollectPluginLibraries({}, catalog_file);
  ASSERT_EQ(plugins.size(), 2u);
  device::OrtDiscovery discovery(plugins);
  const device::Machine machine = device::LoadMachine(discovery, plugins);

  for (const char* name : {"SimNpuExecutionProvider", "SimNpu2ExecutionProvider"}) {
    const device::EpStatus* status = machine.inventory.FindEp(name);
    ASSERT_NE(status, nullptr) << name;
    EXPECT_TRUE(status->usable) << status->reason;
  }
  const device::Resolver resolver = machine.MakeResolver();
  const device::EpSelection npu = resolver.ResolveOnnxEp(device::DeviceRequest::Parse("npu"));
  ASSERT_NE(npu.ep, nullptr);
  EXPECT_EQ(npu.ep->name, "SimNpuExecutionProvider");
  EXPECT_EQ(npu.device, device::DeviceKind::kNpu);
  EXPECT_EQ(resolver.ResolveDevice(device::DeviceRequest::Parse("auto")).device, device::DeviceKind::kNpu);
  EXPECT_EQ(machine.catalog.Normalize("simnpu").name, "SimNpuExecutionProvider");
  EXPECT_EQ(machine.catalog.Normalize("SIMNPU2").name, "SimNpu2ExecutionProvider");
  EXPECT_EQ(resolver.ResolveOnnxEp(device::DeviceRequest::Parse("npu"), &machine.catalog.Normalize("simnpu2")).ep->name,
            "SimNpu2ExecutionProvider");
}

}  // namespace
}  // namespace modelkit
