// The device classes modelkit routes work to, in the order `--device auto` prefers them.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace modelkit::device {

// Declaration order is the auto-selection priority: NPU, then GPU, then CPU.
enum class DeviceKind { kNpu, kGpu, kCpu };

inline constexpr std::array<DeviceKind, 3> kDevicePriority = {DeviceKind::kNpu, DeviceKind::kGpu, DeviceKind::kCpu};

// "npu", "gpu" or "cpu".
std::string_view DeviceName(DeviceKind kind);

// Parses "npu"/"gpu"/"cpu" case-insensitively; anything else (including "auto") gives nullopt.
std::optional<DeviceKind> ParseDeviceKind(std::string_view text);

// Upper-case spelling used by `device_type` provider options ("NPU").
std::string_view DeviceTypeOptionValue(DeviceKind kind);

}  // namespace modelkit::device
