// What `modelkit sys` reports about a machine, as JSON and as console text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "modelkit/device/machine.h"

namespace modelkit::device {

inline constexpr int kMachineReportSchemaVersion = 1;

struct MachineReportSections {
  bool devices = true;
  bool execution_providers = true;
};

// {"schema_version", "ort_version", "devices": [...], "execution_providers": [...]} (the sections asked for).
// Devices carry "rank" (1 = what --device auto picks; null when no usable EP serves it), "type", "vendor",
// "name", "vendor_id", "device_id", "execution_providers" (usable EPs on it, priority order). EPs carry "name",
// "alias", "devices", "usable", "reason" (null when usable), "plugin", "library", "source", "ep_context",
// "in_catalog". InventoryFromJson reads this shape back.
nlohmann::ordered_json MachineReportJson(const Machine& machine, MachineReportSections sections = {});

// The same as aligned text tables.
std::string MachineReportText(const Machine& machine, MachineReportSections sections = {});

}  // namespace modelkit::device
