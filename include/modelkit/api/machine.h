// modelkit's public C++ API (docs/library.md): the machine a program runs on, as modelkit sees it: the execution
// providers (EPs) ONNX Runtime offers here, built-in and plugin, the devices they serve, and which EP a device request
// resolves to. Standard library types only; stable across minor versions.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace modelkit {

struct MachineOptions {
  // Plugin EP libraries to register, each "NAME=PATH" (as `modelkit --ep-library`).
  std::vector<std::string> ep_libraries;
  // A plugin catalog file (as `--ep-catalog`). Empty: $MODELKIT_EP_CATALOG when set ("none" disables catalogs), else
  // the catalog installed beside libmodelkit (lib/modelkit/ep_catalog.json).
  std::filesystem::path ep_catalog;
};

struct ExecutionProviderInfo {
  std::string name;                  // ONNX Runtime's name, e.g. "CPUExecutionProvider"
  std::string alias;                 // modelkit's short name, e.g. "cpu", "webgpu", "simnpu"
  std::vector<std::string> devices;  // "npu", "gpu", "cpu": what it serves on this machine, priority order
  bool usable = false;               // can run a session here
  std::string reason;                // why not, when not usable
  std::string library;               // the plugin library providing it; empty for EPs built into ONNX Runtime
};

struct HardwareDeviceInfo {
  std::string kind;    // "npu", "gpu" or "cpu"
  std::string vendor;  // may be empty where ONNX Runtime does not say
  std::string name;    // may be empty
};

class Machine {
 public:
  // Reads the plugin catalog; registers nothing until a method below needs the discovered machine. Throws
  // modelkit::Error (UsageError) for a bad library spec or catalog.
  explicit Machine(const MachineOptions& options = {});
  ~Machine();
  Machine(Machine&&) noexcept;
  Machine& operator=(Machine&&) noexcept;

  // Every EP ONNX Runtime reports here, usable or not, with the devices it serves. Registers the plugin libraries
  // with ONNX Runtime on the first call of any method that discovers.
  std::vector<ExecutionProviderInfo> ExecutionProviders();
  std::vector<HardwareDeviceInfo> Devices();
  // The alias of the EP a run on `device` ("auto", "npu", "gpu" or "cpu") uses, by modelkit's resolution rules
  // (docs/ep-catalog.md). Throws modelkit::Error (UsageError) when no usable EP here serves it.
  std::string ResolveEp(const std::string& device);
  // The ONNX Runtime version in use, e.g. "1.30.0".
  static std::string OrtVersion();

  struct Impl;  // private: defined inside libmodelkit
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace modelkit
