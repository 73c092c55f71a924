#include "modelkit/api/machine.h"

#include <dlfcn.h>

#include <optional>

#include "machine_impl.h"
#include "modelkit/device/device_kind.h"
#include "modelkit/device/device_request.h"
#include "modelkit/ort/runtime.h"

namespace modelkit {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> DeviceNames(const std::vector<device::DeviceKind>& kinds) {
  std::vector<std::string> names;
  for (const device::DeviceKind kind : kinds) names.emplace_back(device::DeviceName(kind));
  return names;
}

}  // namespace

std::optional<fs::path> LibraryDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&LibraryDirectory), &info) == 0 || info.dli_fname == nullptr) {
    return std::nullopt;
  }
  std::error_code ec;
  const fs::path library = fs::canonical(info.dli_fname, ec);
  if (ec) return std::nullopt;
  return library.parent_path();
}

Machine::Machine(const MachineOptions& options) {
  const std::optional<fs::path> catalog =
      options.ep_catalog.empty() ? std::nullopt : std::optional<fs::path>(options.ep_catalog);
  // The catalog installed beside libmodelkit, wherever the program that links it lives.
  const std::optional<fs::path> directory = LibraryDirectory();
  const std::optional<fs::path> installed =
      directory ? std::optional<fs::path>(*directory / "ep_catalog.json") : std::nullopt;
  impl_ = std::make_unique<Impl>(options, device::CollectPluginLibraries(options.ep_libraries, catalog, installed));
}

Machine::~Machine() = default;
Machine::Machine(Machine&&) noexcept = default;
Machine& Machine::operator=(Machine&&) noexcept = default;

std::vector<ExecutionProviderInfo> Machine::ExecutionProviders() {
  const device::Machine& machine = impl_->access.Discover();
  std::vector<ExecutionProviderInfo> eps;
  for (const device::EpStatus& status : machine.inventory.eps) {
    ExecutionProviderInfo info;
    info.name = status.name;
    const device::EpRow* row = machine.catalog.Find(status.name);
    info.alias = row != nullptr ? row->Alias() : "";
    info.devices = DeviceNames(status.devices);
    info.usable = status.usable;
    info.reason = status.reason;
    info.library = status.library ? status.library->string() : "";
    eps.push_back(std::move(info));
  }
  return eps;
}

std::vector<HardwareDeviceInfo> Machine::Devices() {
  std::vector<HardwareDeviceInfo> devices;
  for (const device::HardwareDevice& device : impl_->access.Discover().inventory.devices) {
    devices.push_back({std::string(device::DeviceName(device.kind)), device.vendor, device.name});
  }
  return devices;
}

std::string Machine::ResolveEp(const std::string& device) {
  const device::Machine& machine = impl_->access.Discover();
  const device::EpSelection selection = machine.MakeResolver().ResolveOnnxEp(device::DeviceRequest::Parse(device));
  return selection.ep->Alias();
}

std::string Machine::OrtVersion() { return ort::RuntimeVersion(); }

}  // namespace modelkit
