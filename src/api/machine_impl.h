// What modelkit::Machine holds: the session layer's lazily discovered machine for the plugin libraries it was given.
// Private to libmodelkit.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "modelkit/api/machine.h"
#include "modelkit/device/plugin_libraries.h"
#include "modelkit/session/machine_access.h"

namespace modelkit {

struct Machine::Impl {
  Impl(const MachineOptions& given, std::vector<device::PluginLibrary> plugins)
      : options(given), access(std::move(plugins)) {}
  MachineOptions options;
  session::PluginMachineAccess access;
};

// The directory libmodelkit was loaded from: lib/modelkit/ of the install or build tree (docs/install.md), beside
// the EP catalog and under bin/modelkit. nullopt when the loader does not say.
std::optional<std::filesystem::path> LibraryDirectory();

}  // namespace modelkit
