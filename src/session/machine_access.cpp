#include "modelkit/session/machine_access.h"

#include <mutex>

#include "modelkit/compile/cache_identity.h"
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

std::string EpLibraryVersion(const device::EpRow& row) {
  if (!row.plugin_library) return "";
  static std::mutex mutex;
  static std::map<std::string, std::string> hashes;
  const std::lock_guard<std::mutex> lock(mutex);
  const std::string key = row.plugin_library->string();
  auto found = hashes.find(key);
  if (found == hashes.end()) found = hashes.emplace(key, "xxh3:" + compile::HashFile(*row.plugin_library)).first;
  return found->second;
}

}  // namespace modelkit::session
