// What a genai session needs to know about the machine, obtained lazily: the EP catalog is cheap and registers
// nothing; discovery registers every plugin EP library with ORT's shared env, so it happens only when a run needs
// it (a concrete --device to resolve, or an effective config that routes a stage to a plugin EP).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/machine.h"
#include "modelkit/device/plugin_libraries.h"

namespace modelkit::session {

class MachineAccess {
 public:
  virtual ~MachineAccess() = default;
  // Built-in rows plus the rows plugin manifests describe. Registers nothing.
  virtual const device::EpCatalog& Catalog() = 0;
  // The discovered machine (registers plugin libraries with ORT on the first call). Its catalog is a superset
  // of Catalog() and is the one sessions must resolve providers against.
  virtual const device::Machine& Discover() = 0;
  // Whether Discover() has run.
  virtual bool Discovered() const = 0;
};

// The real machine for a list of plugin libraries (device::CollectPluginLibraries).
class PluginMachineAccess final : public MachineAccess {
 public:
  explicit PluginMachineAccess(std::vector<device::PluginLibrary> plugins);

  const device::EpCatalog& Catalog() override;
  const device::Machine& Discover() override;
  bool Discovered() const override { return discovered_.has_value(); }

 private:
  std::vector<device::PluginLibrary> plugins_;
  std::optional<device::Machine> catalog_only_;
  std::optional<device::Machine> discovered_;
};

}  // namespace modelkit::session
