#include "modelkit/session/machine_access.h"

#include "modelkit/device/discovery.h"

namespace modelkit::session {
namespace {

// Reports nothing: a catalog built with it holds only the built-in and manifest rows.
class NoDiscovery final : public device::Discovery {
 public:
  device::Inventory Discover(const device::EpCatalog&) override { return {}; }
};

}  // namespace

PluginMachineAccess::PluginMachineAccess(std::vector<device::PluginLibrary> plugins) : plugins_(std::move(plugins)) {}

const device::EpCatalog& PluginMachineAccess::Catalog() {
  if (discovered_) return discovered_->catalog;
  if (!catalog_only_) {
    NoDiscovery none;
    catalog_only_ = device::LoadMachine(none, plugins_);
  }
  return catalog_only_->catalog;
}

const device::Machine& PluginMachineAccess::Discover() {
  if (!discovered_) {
    device::OrtDiscovery discovery(plugins_);
    discovered_ = device::LoadMachine(discovery, plugins_);
  }
  return *discovered_;
}

}  // namespace modelkit::session
