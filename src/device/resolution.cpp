#include "modelkit/device/resolution.h"

#include <algorithm>

#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"

namespace modelkit::device {
namespace {

size_t Index(DeviceKind kind) { return static_cast<size_t>(kind); }

std::string Names(const std::vector<const EpRow*>& eps) {
  std::vector<std::string> names;
  for (const EpRow* ep : eps) names.push_back(ep->name);
  return names.empty() ? "none" : Join(names, ", ");
}

std::string DeviceNames(const std::vector<DeviceKind>& devices) {
  std::vector<std::string> names;
  for (DeviceKind device : devices) names.emplace_back(DeviceName(device));
  return Join(names, ", ");
}

}  // namespace

Resolver::Resolver(const EpCatalog& catalog, const Inventory& inventory) : catalog_(catalog), inventory_(inventory) {
  for (const EpRow& row : catalog_.rows()) {
    const EpStatus* status = nullptr;
    for (const EpStatus& candidate : inventory_.eps) {
      if (candidate.usable && EqualsIgnoreCase(candidate.name, row.name)) status = &candidate;
    }
    if (status == nullptr) continue;
    for (DeviceKind device : status->devices) {
      auto& list = device_eps_[Index(device)];
      if (std::find(list.begin(), list.end(), &row) == list.end()) list.push_back(&row);
    }
  }
}

bool Resolver::Present(const EpRow* ep, DeviceKind device) const {
  const auto& list = device_eps_[Index(device)];
  return std::find(list.begin(), list.end(), ep) != list.end();
}

std::vector<DeviceKind> Resolver::AvailableDevices() const {
  std::vector<DeviceKind> devices;
  for (DeviceKind device : kDevicePriority) {
    if (!device_eps_[Index(device)].empty()) devices.push_back(device);
  }
  return devices;
}

std::vector<const EpRow*> Resolver::AvailableEps() const {
  std::vector<const EpRow*> eps;
  for (const EpRow& row : catalog_.rows()) {
    for (DeviceKind device : kDevicePriority) {
      if (Present(&row, device)) {
        eps.push_back(&row);
        break;
      }
    }
  }
  return eps;
}

std::string Resolver::DescribeAvailableEps() const { return Names(AvailableEps()); }

DeviceResolution Resolver::ResolveDevice(DeviceRequest device, const EpRow* ep) const {
  if (device.follows_config()) {
    throw UsageError("--device config is only valid with --runtime genai (it means: respect the bundle's config)");
  }
  const std::optional<DeviceKind> explicit_device = device.kind();

  DeviceResolution resolution;
  if (ep != nullptr) {
    if (explicit_device && !ep->Supports(*explicit_device)) {
      throw UsageError("EP '" + ep->name + "' does not support device '" + std::string(DeviceName(*explicit_device)) +
                       "' (--ep with --device); supported devices: " + DeviceNames(ep->devices));
    }
    for (DeviceKind candidate : kDevicePriority) {
      if (Present(ep, candidate)) resolution.available_devices.push_back(candidate);
    }
    if (resolution.available_devices.empty()) {
      std::string why;
      for (const EpStatus& status : inventory_.eps) {
        if (EqualsIgnoreCase(status.name, ep->name) && !status.usable) {
          why = " (ONNX Runtime lists it but it cannot run here: " + status.reason + ")";
        }
      }
      throw UsageError("requested EP '" + ep->name + "' is not available on this machine" + why +
                       "; available EPs: " + DescribeAvailableEps() + "." + std::string(kListEpHint));
    }
  } else {
    resolution.available_devices = AvailableDevices();
    if (resolution.available_devices.empty()) {
      throw RuntimeError("no execution providers detected: ONNX Runtime offers no usable EP on this machine." +
                         std::string(kListEpHint));
    }
  }

  if (!explicit_device) {
    resolution.device = resolution.available_devices.front();
    return resolution;
  }
  const auto& available = resolution.available_devices;
  if (std::find(available.begin(), available.end(), *explicit_device) == available.end()) {
    throw UsageError("device '" + std::string(DeviceName(*explicit_device)) +
                     "' requested (--device) but no compatible EP is available; compatible EPs: " +
                     Names(catalog_.PriorityList(*explicit_device)) + "; available EPs: " + DescribeAvailableEps() +
                     "." + std::string(kListEpHint));
  }
  resolution.device = *explicit_device;
  return resolution;
}

std::vector<const EpRow*> Resolver::ResolveEps(DeviceKind device) const {
  std::vector<const EpRow*> eps;
  for (const EpRow* row : catalog_.PriorityList(device)) {
    if (Present(row, device)) eps.push_back(row);
  }
  return eps;
}

const EpRow* Resolver::PreferDeviceNative(const std::vector<const EpRow*>& eps, DeviceKind device) {
  if (eps.empty()) return nullptr;
  for (const EpRow* ep : eps) {
    if (ep->PrimaryDevice() == device) return ep;
  }
  return eps.front();
}

const EpRow* Resolver::ResolveGenaiEp(DeviceRequest device) const {
  if (device.follows_config()) return nullptr;
  const DeviceResolution resolution = ResolveDevice(device);
  return PreferDeviceNative(ResolveEps(resolution.device), resolution.device);
}

EpSelection Resolver::ResolveOnnxEp(DeviceRequest device, const EpRow* ep) const {
  const DeviceResolution resolution = ResolveDevice(device, ep);
  if (ep != nullptr) return {ep, resolution.device};
  const EpRow* chosen = PreferDeviceNative(ResolveEps(resolution.device), resolution.device);
  if (chosen == nullptr) {
    throw UsageError("no EP in the catalog's priority list for device '" + std::string(DeviceName(resolution.device)) +
                     "' is usable here; available EPs: " + DescribeAvailableEps() + "." + std::string(kListEpHint));
  }
  return {chosen, resolution.device};
}

}  // namespace modelkit::device
