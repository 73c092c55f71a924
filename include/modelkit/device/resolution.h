// Device and EP resolution: which device and EP a run uses, given --device/--ep and what the machine has. The ONNX
// and the genai runtimes apply the same rules (docs/ep-catalog.md): `auto` takes the first device in NPU > GPU > CPU
// order that has a usable EP; a device's EPs are the catalog's priority list filtered to what is usable there; and
// the primary-device rule picks among them the first EP whose primary device is that device, else the first. Every
// failure is a modelkit::Error: usage errors (exit 2) for unavailable requests, a runtime failure (exit 1) when the
// machine has no usable EP at all.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "modelkit/device/device_kind.h"
#include "modelkit/device/device_request.h"
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

  // The device a run uses for an auto or explicit request; `ep` may be nullptr. Order of checks: `config` (a
  // usage error: only genai bundles follow their config); with an EP: the EP does not support the explicit device,
  // the EP is not available here; no EP at all on the machine; an explicit device without a usable EP.
  DeviceResolution ResolveDevice(DeviceRequest device, const EpRow* ep = nullptr) const;

  // The device's catalog priority list filtered to EPs usable on that device here.
  std::vector<const EpRow*> ResolveEps(DeviceKind device) const;

  // The EP a genai override uses for --device without --ep: the primary-device rule over ResolveEps. `config`
  // returns nullptr without resolving anything; an empty EP list returns nullptr; resolution errors propagate.
  const EpRow* ResolveGenaiEp(DeviceRequest device) const;

  // The EP and device a plain ONNX session uses for --device/--ep. With an EP: that EP on the resolved device.
  // Without: the primary-device rule over ResolveEps, as for genai.
  EpSelection ResolveOnnxEp(DeviceRequest device, const EpRow* ep = nullptr) const;

  // Devices with at least one usable EP (NPU > GPU > CPU), and the usable EPs known to the catalog.
  std::vector<DeviceKind> AvailableDevices() const;
  std::vector<const EpRow*> AvailableEps() const;

 private:
  // The primary-device rule: the first EP whose primary device is `device`, else the first EP.
  static const EpRow* PreferDeviceNative(const std::vector<const EpRow*>& eps, DeviceKind device);
  bool Present(const EpRow* ep, DeviceKind device) const;
  std::string DescribeAvailableEps() const;

  const EpCatalog& catalog_;
  const Inventory& inventory_;
  // Usable EPs per device (indexed by DeviceKind), in catalog order.
  std::array<std::vector<const EpRow*>, 3> device_eps_;
};

}  // namespace modelkit::device
