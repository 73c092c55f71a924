// Flags shared by every subcommand that discovers the machine: plugin EP registration.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
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

// --ep-options KEY=VALUE pairs as a map; whitespace around both is stripped and the last value of a key wins.
// Throws UsageError for a pair without '=' or with an empty key.
std::map<std::string, std::string> ParseEpOptions(const std::vector<std::string>& pairs);

}  // namespace modelkit::app
