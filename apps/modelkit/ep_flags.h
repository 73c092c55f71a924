// Flags shared by every subcommand that discovers the machine: plugin EP registration.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/machine.h"

namespace modelkit::app {

struct EpLibraryFlags {
  std::vector<std::string> ep_libraries;  // --ep-library NAME=PATH (repeatable)
  std::string ep_catalog;                 // --ep-catalog FILE

  void Bind(CLI::App& command);
  // Registers the plugins and discovers the real machine.
  device::Machine LoadRealMachine() const;
};

}  // namespace modelkit::app
