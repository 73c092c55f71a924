// What `--device` asks for, parsed once where the user typed it: follow the bundle's own EP routing (`config`,
// genai bundles only), let the machine choose (`auto`), or one device kind.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "modelkit/device/device_kind.h"

namespace modelkit::device {

// How a request and a run that follow the bundle's own EP routing are named on the command line and in reports.
inline constexpr std::string_view kConfigName = "config";

class DeviceRequest {
 public:
  // The bundle's own EP routing, untouched (no override).
  static DeviceRequest Config() { return DeviceRequest(Mode::kConfig, DeviceKind::kCpu); }
  // The best device this machine has, in kDevicePriority order.
  static DeviceRequest Auto() { return DeviceRequest(Mode::kAuto, DeviceKind::kCpu); }
  static DeviceRequest Of(DeviceKind kind) { return DeviceRequest(Mode::kExplicit, kind); }

  // Parses "config", "auto", "npu", "gpu" or "cpu", case-insensitively. Throws UsageError naming the text and the
  // valid spellings otherwise.
  static DeviceRequest Parse(std::string_view text);

  bool follows_config() const { return mode_ == Mode::kConfig; }
  bool is_auto() const { return mode_ == Mode::kAuto; }
  // The requested kind of an explicit request; nullopt for config and auto.
  std::optional<DeviceKind> kind() const {
    return mode_ == Mode::kExplicit ? std::optional<DeviceKind>(kind_) : std::nullopt;
  }
  // "config", "auto", "npu", "gpu" or "cpu": how messages and reports name the request.
  std::string_view Name() const;

  bool operator==(const DeviceRequest&) const = default;

 private:
  enum class Mode { kConfig, kAuto, kExplicit };
  DeviceRequest(Mode mode, DeviceKind kind) : mode_(mode), kind_(kind) {}

  Mode mode_;
  DeviceKind kind_;  // meaningful for kExplicit only
};

// The EP routing a genai run really used: an override EP that took effect (its alias), or the bundle's own config.
struct EffectiveEp {
  std::optional<std::string> override_alias;  // nullopt: the bundle's own routing ran

  bool follows_config() const { return !override_alias.has_value(); }
  // How reports name it: the override's alias, or "config".
  std::string ReportName() const { return override_alias.value_or(std::string(kConfigName)); }
  bool operator==(const EffectiveEp&) const = default;
};

}  // namespace modelkit::device
