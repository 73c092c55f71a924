// Machine descriptions as JSON, in the shape `modelkit sys --format json` prints (extra keys are ignored):
//   {"ort_version": "1.30.0",
//    "devices": [{"type": "npu", "vendor": "Qualcomm", "name": "Hexagon", "vendor_id": 0, "device_id": 0}],
//    "execution_providers": [{"name": "QNNExecutionProvider", "devices": ["npu", "gpu"], "usable": true,
//                             "reason": null, "library": null, "source": "ep_devices"}]}
// Used to inject inventories of machines we don't have into tests.
#pragma once

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "modelkit/device/inventory.h"

namespace modelkit::device {

// Throws UsageError naming `origin` and the JSON path of the first bad value.
Inventory InventoryFromJson(const nlohmann::json& json, std::string_view origin);
Inventory InventoryFromJsonFile(const std::filesystem::path& path);

std::string_view EpSourceName(EpSource source);

}  // namespace modelkit::device
