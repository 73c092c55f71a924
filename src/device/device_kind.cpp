#include "modelkit/device/device_kind.h"

#include "modelkit/base/strings.h"

namespace modelkit::device {

std::string_view DeviceName(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kNpu:
      return "npu";
    case DeviceKind::kGpu:
      return "gpu";
    case DeviceKind::kCpu:
      return "cpu";
  }
  return "cpu";
}

std::optional<DeviceKind> ParseDeviceKind(std::string_view text) {
  for (DeviceKind kind : kDevicePriority) {
    if (EqualsIgnoreCase(text, DeviceName(kind))) return kind;
  }
  return std::nullopt;
}

std::string_view DeviceTypeOptionValue(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kNpu:
      return "NPU";
    case DeviceKind::kGpu:
      return "GPU";
    case DeviceKind::kCpu:
      return "CPU";
  }
  return "CPU";
}

}  // namespace modelkit::device
