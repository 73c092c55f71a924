// Flags shared by every subcommand that discovers the machine: plugin EP registration and --device.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/device_request.h"
#include "modelkit/device/machine.h"

namespace modelkit::app {

struct EpLibraryFlags {
  std::vector<std::string> ep_libraries;  // --ep-library NAME=PATH (repeatable)
  std::string ep_catalog;                 // --ep-catalog FILE

  void Bind(CLI::App& command);
  // What to do with a library named by --ep-library that ONNX Runtime cannot register: a command that runs a model
  // refuses it (the user asked for that EP); `sys` lists it as an unusable EP with the reason.
  enum class BrokenLibraries { kRefused, kListed };
  // Registers the plugins and discovers the real machine. Throws UsageError for a broken --ep-library when
  // `broken` is kRefused.
  device::Machine LoadRealMachine(BrokenLibraries broken = BrokenLibraries::kRefused) const;
  // The plugin libraries these flags, the environment and the default catalog declare (nothing registered).
  std::vector<device::PluginLibrary> Plugins() const;
  // These flags as arguments for a modelkit child process (the environment is inherited anyway).
  std::vector<std::string> ForwardedArgs() const;
};

// Binds -d/--device: the text is parsed into `request` as the command line is read (a UsageError naming the valid
// devices for an unknown one). The help shows `request`'s value at binding time as the default.
CLI::Option* AddDeviceOption(CLI::App& command, device::DeviceRequest& request, const std::string& help);
// The same for a command whose default depends on its input (`perf`: a model or a bundle); nullopt when not typed.
CLI::Option* AddDeviceOption(CLI::App& command, std::optional<device::DeviceRequest>& request, const std::string& help);

// --ep-options KEY=VALUE pairs as a map; whitespace around both is stripped and the last value of a key wins.
// Throws UsageError for a pair without '=' or with an empty key.
std::map<std::string, std::string> ParseEpOptions(const std::vector<std::string>& pairs);

}  // namespace modelkit::app
