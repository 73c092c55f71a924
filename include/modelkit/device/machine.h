// A machine as the rest of modelkit sees it: the EP catalog (built-ins plus registered plugins) and the
// discovered inventory, from which a Resolver answers --device/--ep questions.
#pragma once

#include <vector>

#include "modelkit/device/discovery.h"
#include "modelkit/device/ep_catalog.h"
#include "modelkit/device/inventory.h"
#include "modelkit/device/plugin_libraries.h"
#include "modelkit/device/resolution.h"

namespace modelkit::device {

struct Machine {
  EpCatalog catalog;
  Inventory inventory;

  // The resolver refers into this Machine: keep the Machine alive and in place while using it.
  Resolver MakeResolver() const { return Resolver(catalog, inventory); }
};

// Builds the catalog (built-in rows, then each plugin's manifest row), runs `discovery`, then adds a row for
// every plugin-provided EP that no row describes, with the devices ORT reported (forward compatibility).
// Throws UsageError when a plugin row's name or alias collides with an existing row.
Machine LoadMachine(Discovery& discovery, const std::vector<PluginLibrary>& plugins);

}  // namespace modelkit::device
