#include "modelkit/device/machine.h"

namespace modelkit::device {

Machine LoadMachine(Discovery& discovery, const std::vector<PluginLibrary>& plugins) {
  Machine machine{EpCatalog::BuiltIn(), {}};
  for (const PluginLibrary& plugin : plugins) {
    if (plugin.manifest_row) machine.catalog.AddPluginRow(*plugin.manifest_row, plugin.origin);
  }
  machine.inventory = discovery.Discover(machine.catalog);
  for (const EpStatus& status : machine.inventory.eps) {
    if (!status.library || status.devices.empty() || machine.catalog.Find(status.name) != nullptr) continue;
    EpRow row;
    row.name = status.name;
    row.devices = status.devices;
    row.plugin_library = status.library;
    row.registration_name = status.name;
    machine.catalog.AddPluginRow(std::move(row), "plugin library " + status.library->string());
  }
  return machine;
}

}  // namespace modelkit::device
