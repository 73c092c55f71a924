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
  // The plugin libraries these flags, the environment and the default catalog declare (nothing registered).
  std::vector<device::PluginLibrary> Plugins() const;
  // These flags as arguments for a modelkit child process (the environment is inherited anyway).
  std::vector<std::string> ForwardedArgs() const;
};

// --ep-options KEY=VALUE pairs as a map; whitespace around both is stripped and the last value of a key wins.
// Throws UsageError for a pair without '=' or with an empty key.
std::map<std::string, std::string> ParseEpOptions(const std::vector<std::string>& pairs);

}  // namespace modelkit::app
