// Internal to src/device: ORT's hardware device type as a DeviceKind.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <optional>

#include "modelkit/device/device_kind.h"

namespace modelkit::device {

inline std::optional<DeviceKind> DeviceKindOf(OrtHardwareDeviceType type) {
  switch (type) {
    case OrtHardwareDeviceType_NPU:
      return DeviceKind::kNpu;
    case OrtHardwareDeviceType_GPU:
      return DeviceKind::kGpu;
    case OrtHardwareDeviceType_CPU:
      return DeviceKind::kCpu;
  }
  return std::nullopt;
}

}  // namespace modelkit::device
