// What a machine has: hardware devices and the execution providers ORT offers on them, usable or not.
// Produced by a Discovery (real or injected); consumed by resolution and `modelkit sys`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/device_kind.h"

namespace modelkit::device {

struct HardwareDevice {
  DeviceKind kind = DeviceKind::kCpu;
  std::string vendor;  // e.g. "Intel"; may be empty when ORT does not say
  std::string name;    // model/description; may be empty
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
};

// Where an EP entry was learned from.
enum class EpSource {
  kEpDevices,           // ORT's GetEpDevices (built-in or plugin EP bound to a hardware device)
  kAvailableProviders,  // ORT's GetAvailableProviders, checked by really appending it to a session
};

struct EpStatus {
  std::string name;                              // as ORT reports it
  std::vector<DeviceKind> devices;               // devices it serves on this machine, priority order
  bool usable = false;                           // can really run a session here
  std::string reason;                            // why not usable; empty when usable
  std::optional<std::filesystem::path> library;  // the plugin library providing it, if any
  bool library_refused = false;                  // ONNX Runtime could not register `library` (not a plugin EP)
  EpSource source = EpSource::kEpDevices;
};

struct Inventory {
  std::string ort_version;
  std::vector<HardwareDevice> devices;
  std::vector<EpStatus> eps;

  // The entry for `ep_name` (exact ORT spelling), or nullptr.
  const EpStatus* FindEp(std::string_view ep_name) const;
};

}  // namespace modelkit::device
