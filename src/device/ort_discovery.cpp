#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "modelkit/base/error.h"
#include "modelkit/base/host_info.h"
#include "modelkit/base/phase.h"
#include "modelkit/base/stderr_capture.h"
#include "modelkit/device/discovery.h"
#include "modelkit/ort/ort_error.h"
#include "modelkit/ort/probe_model.h"
#include "modelkit/ort/provider_append.h"
#include "modelkit/ort/runtime.h"
#include "ort_device_kind.h"

namespace modelkit::device {
namespace {

// Creates a session for the probe model with the given options. Returns the failure reason, or "" on success.
std::string TryProbeSession(Ort::SessionOptions& options) {
  const auto bytes = ort::ProbeModelBytes();
  try {
    Ort::Session session(ort::SharedEnv(), bytes.data(), bytes.size(), options);
    return {};
  } catch (const Ort::Exception& error) {
    return ort::OrtErrorReason(error);
  }
}

std::string ProbeBuiltIn(const EpRow& row) {
  try {
    Ort::SessionOptions options;
    options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
    // Without this a provider that cannot take the node would silently leave it to the CPU EP.
    if (row.append_method != ort::AppendMethod::kNone) options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
    // Native back ends (Dawn, provider bridges) print their own warnings while failing; the reason says it all.
    StderrCapture quiet;
    ort::AppendBuiltInProvider(options, row.append_method, row.append_name, {});
    return TryProbeSession(options);
  } catch (const Ort::Exception& error) {
    return ort::OrtErrorReason(error);
  } catch (const Error& error) {
    return error.what();
  }
}

std::string ProbeEpDevices(const std::vector<Ort::ConstEpDevice>& devices) {
  try {
    Ort::SessionOptions options;
    options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
    options.AppendExecutionProvider_V2(ort::SharedEnv(), devices, std::unordered_map<std::string, std::string>{});
    return TryProbeSession(options);
  } catch (const Ort::Exception& error) {
    return ort::OrtErrorReason(error);
  }
}

// Registration names already registered with the shared env, so a second discovery in the process is harmless.
std::mutex registered_mutex;
std::set<std::string>& RegisteredNames() {
  static std::set<std::string> names;
  return names;
}

std::set<std::string> EpNames(const std::vector<Ort::ConstEpDevice>& devices) {
  std::set<std::string> names;
  for (const auto& device : devices) names.insert(device.EpName());
  return names;
}

}  // namespace

Inventory OrtDiscovery::Discover(const EpCatalog& catalog) {
  const ScopedPhase phase("discovering devices and execution providers");
  Ort::Env& env = ort::SharedEnv();
  Inventory inventory;
  inventory.ort_version = ort::RuntimeVersion();

  // 1. Plugin libraries: register, remembering which EP names each one added.
  std::map<std::string, std::filesystem::path> plugin_of_ep;
  for (const PluginLibrary& plugin : plugins_) {
    const std::set<std::string> before = EpNames(env.GetEpDevices());
    std::string failure;
    {
      std::lock_guard<std::mutex> lock(registered_mutex);
      if (!RegisteredNames().count(plugin.registration_name)) {
        try {
          env.RegisterExecutionProviderLibrary(plugin.registration_name.c_str(), plugin.library.string());
          RegisteredNames().insert(plugin.registration_name);
        } catch (const Ort::Exception& error) {
          failure = ort::OrtErrorReason(error);
        }
      }
    }
    const std::string expected_name = plugin.manifest_row ? plugin.manifest_row->name : plugin.registration_name;
    if (!failure.empty()) {
      EpStatus status;
      status.name = expected_name;
      status.usable = false;
      status.reason = "registering " + plugin.library.string() + " failed: " + failure;
      status.library = plugin.library;
      status.library_refused = true;
      if (plugin.manifest_row) status.devices = plugin.manifest_row->devices;
      inventory.eps.push_back(std::move(status));
      continue;
    }
    bool added_any = false;
    for (const std::string& name : EpNames(env.GetEpDevices())) {
      if (!before.count(name)) {
        plugin_of_ep[name] = plugin.library;
        added_any = true;
      }
    }
    // Nothing new: registered earlier in this process, or the library offers no device here.
    if (!added_any) plugin_of_ep.try_emplace(expected_name, plugin.library);
  }

  // 2. EP devices: group by EP, collect hardware devices.
  const std::vector<Ort::ConstEpDevice> ep_devices = env.GetEpDevices();
  std::vector<const OrtHardwareDevice*> seen_hardware;
  std::vector<std::string> ep_order;
  std::map<std::string, std::vector<Ort::ConstEpDevice>> devices_of_ep;
  for (const Ort::ConstEpDevice& ep_device : ep_devices) {
    const std::string name = ep_device.EpName();
    if (!devices_of_ep.count(name)) ep_order.push_back(name);
    devices_of_ep[name].push_back(ep_device);
    const Ort::ConstHardwareDevice hardware = ep_device.Device();
    const OrtHardwareDevice* raw = hardware;
    if (std::find(seen_hardware.begin(), seen_hardware.end(), raw) != seen_hardware.end()) continue;
    seen_hardware.push_back(raw);
    const std::optional<DeviceKind> kind = DeviceKindOf(hardware.Type());
    if (!kind) continue;
    HardwareDevice device;
    device.kind = *kind;
    device.vendor = hardware.Vendor() ? hardware.Vendor() : "";
    device.vendor_id = hardware.VendorId();
    device.device_id = hardware.DeviceId();
    const auto metadata = hardware.Metadata().GetKeyValuePairs();
    if (auto it = metadata.find("Description"); it != metadata.end()) device.name = it->second;
    if (device.name.empty() && device.kind == DeviceKind::kCpu) device.name = CpuModelName();
    inventory.devices.push_back(std::move(device));
  }
  for (const std::string& name : ep_order) {
    EpStatus status;
    status.name = name;
    status.source = EpSource::kEpDevices;
    for (const Ort::ConstEpDevice& ep_device : devices_of_ep[name]) {
      const std::optional<DeviceKind> kind = DeviceKindOf(ep_device.Device().Type());
      if (kind && std::find(status.devices.begin(), status.devices.end(), *kind) == status.devices.end()) {
        status.devices.push_back(*kind);
      }
    }
    std::sort(status.devices.begin(), status.devices.end());
    if (auto it = plugin_of_ep.find(name); it != plugin_of_ep.end()) status.library = it->second;
    status.reason = ProbeEpDevices(devices_of_ep[name]);
    status.usable = status.reason.empty();
    inventory.eps.push_back(std::move(status));
  }

  // 3. Built-in providers ORT lists by name, checked by really appending them.
  for (const std::string& name : Ort::GetAvailableProviders()) {
    if (inventory.FindEp(name) != nullptr) continue;
    const EpRow* row = catalog.Find(name);
    if (row == nullptr) continue;  // a provider no catalog row describes cannot be routed to
    EpStatus status;
    status.name = name;
    status.source = EpSource::kAvailableProviders;
    status.devices = row->devices;
    status.reason = ProbeBuiltIn(*row);
    status.usable = status.reason.empty();
    if (!status.usable && !row->unusable_hint.empty()) status.reason += "; " + row->unusable_hint;
    inventory.eps.push_back(std::move(status));
  }

  // Plugins whose library registered but offered no device: listed, not usable.
  for (const auto& [name, library] : plugin_of_ep) {
    if (inventory.FindEp(name) != nullptr) continue;
    EpStatus status;
    status.name = name;
    status.library = library;
    status.reason = "the library registered but offers no device on this machine";
    inventory.eps.push_back(std::move(status));
  }
  return inventory;
}

}  // namespace modelkit::device
