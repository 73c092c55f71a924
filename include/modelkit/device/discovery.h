// Discovery: what a machine has. Behind an interface so tests can inject machines we do not have.
#pragma once

#include <vector>

#include "modelkit/device/ep_catalog.h"
#include "modelkit/device/inventory.h"
#include "modelkit/device/plugin_libraries.h"

namespace modelkit::device {

class Discovery {
 public:
  virtual ~Discovery() = default;
  // Returns the machine's devices and EPs. `catalog` says how to check built-in providers.
  virtual Inventory Discover(const EpCatalog& catalog) = 0;
};

// Returns a fixed inventory (e.g. read with InventoryFromJsonFile): for unit tests of pure logic.
class FakeDiscovery final : public Discovery {
 public:
  explicit FakeDiscovery(Inventory inventory) : inventory_(std::move(inventory)) {}
  Inventory Discover(const EpCatalog&) override { return inventory_; }

 private:
  Inventory inventory_;
};

// The real machine through ONNX Runtime:
//  - registers each plugin library with the shared env (once per registration name per process);
//  - lists ORT's EP devices (GetEpDevices), attributing new ones to the plugin library that added them;
//  - checks every EP by creating a session for a tiny model with it appended: built-in providers that
//    GetAvailableProviders lists but cannot run here (CUDA/TensorRT without their provider libraries, WebGPU
//    without a Vulkan adapter) are reported unusable, with ORT's reason.
class OrtDiscovery final : public Discovery {
 public:
  explicit OrtDiscovery(std::vector<PluginLibrary> plugins) : plugins_(std::move(plugins)) {}
  Inventory Discover(const EpCatalog& catalog) override;

 private:
  std::vector<PluginLibrary> plugins_;
};

}  // namespace modelkit::device
