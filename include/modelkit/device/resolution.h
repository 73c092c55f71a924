// Device and EP resolution: which device and EP a run uses, given --device/--ep and what the machine has.
// Rules follow upstream winml-cli (PR state with the #1138 primary-device rule) and are applied identically by
// the ONNX and the genai runtimes. Every failure is a modelkit::Error: usage errors (exit 2) for bad or
// unavailable requests, a runtime failure (exit 1) when the machine has no usable EP at all.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "modelkit/device/device_kind.h"
#include "modelkit/device/ep_catalog.h"
#include "modelkit/device/inventory.h"

namespace modelkit::device {

struct DeviceResolution {
  DeviceKind device = DeviceKind::kCpu;
  std::vector<DeviceKind> available_devices;  // NPU > GPU > CPU order
};

// An EP bound to the device it runs on.
struct EpSelection {
  const EpRow* ep = nullptr;
  DeviceKind device = DeviceKind::kCpu;
};

class Resolver {
 public:
  // Both must outlive the resolver. Only usable inventory EPs that the catalog knows take part.
  Resolver(const EpCatalog& catalog, const Inventory& inventory);

  // Normalises an --ep value (canonical name or alias, case-insensitive). Throws UsageError naming the valid
  // spellings when no row knows it.
  const EpRow& NormalizeEp(std::string_view ep) const;

  // U§1.4 resolve_device. `device` is "auto", "npu", "gpu" or "cpu" (case-insensitive); `ep` may be nullptr.
  // Order of checks: unknown device; with an EP: EP does not support the explicit device, EP not available here;
  // no EP at all on the machine; explicit device without a usable EP.
  DeviceResolution ResolveDevice(std::string_view device, const EpRow* ep = nullptr) const;

  // U§1.4 resolve_eps: the device's static priority list filtered to EPs usable on that device here.
  std::vector<const EpRow*> ResolveEps(DeviceKind device) const;
  // Same from a device name (case-insensitive); an unknown name gives an empty list.
  std::vector<const EpRow*> ResolveEps(std::string_view device) const;

  // U§1.5 resolve_genai_ep with the #1138 primary-device rule. "config" returns nullptr without resolving
  // anything; an empty EP list returns nullptr; resolution errors propagate.
  const EpRow* ResolveGenaiEp(std::string_view device) const;

  // The EP and device a plain ONNX session uses for --device/--ep. With an EP: that EP on the resolved device.
  // Without: the primary-device rule over ResolveEps (product.md: both runtimes apply it).
  EpSelection ResolveOnnxEp(std::string_view device, const EpRow* ep = nullptr) const;

  // Devices with at least one usable EP (NPU > GPU > CPU), and the usable EPs known to the catalog.
  std::vector<DeviceKind> AvailableDevices() const;
  std::vector<const EpRow*> AvailableEps() const;

 private:
  // The #1138 rule: the first EP whose primary device is `device`, else the first EP.
  static const EpRow* PreferDeviceNative(const std::vector<const EpRow*>& eps, DeviceKind device);
  bool Present(const EpRow* ep, DeviceKind device) const;
  std::string DescribeAvailableEps() const;

  const EpCatalog& catalog_;
  const Inventory& inventory_;
  // Usable EPs per device (indexed by DeviceKind), in catalog order.
  std::array<std::vector<const EpRow*>, 3> device_eps_;
};

}  // namespace modelkit::device
