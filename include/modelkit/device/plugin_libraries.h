// Plugin EP libraries to register with ORT, from three places (all of them are used, in this order):
//   1. a catalog file: --ep-catalog FILE or MODELKIT_EP_CATALOG, JSON
//        {"plugins": [{"name": "SimNpu", "library": "lib/libsim_npu.so", "manifest": "sim_npu.json",
//                      "row": {...manifest fields overriding the manifest's...}}]}
//      (relative paths are relative to the catalog file);
//   2. MODELKIT_EP_LIBRARIES = "NAME=PATH:NAME=PATH";
//   3. --ep-library NAME=PATH (repeatable).
// NAME is the registration name given to ORT. A manifest is optional JSON describing the EP's catalog row:
//   {"ep_name": "SimNpuExecutionProvider", "aliases": ["simnpu"], "devices": ["npu"], "ep_context": true,
//    "device_type_option": true, "provider_option_keys": ["device_type"]}
// ("ep_name" defaults to NAME). Without an explicit manifest, "<library stem>.manifest.json" beside the library is
// used when it exists. Without any manifest the row is made from what ORT reports after registration.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/device/ep_catalog.h"

namespace modelkit::device {

struct PluginLibrary {
  std::string registration_name;
  std::filesystem::path library;      // absolute (ORT resolves relative paths against its own directory)
  std::optional<EpRow> manifest_row;  // the catalog row, when a manifest describes it
  std::string origin;                 // where it was declared, for messages ("--ep-library SimNpu=...")
};

// Parses one NAME=PATH. Throws UsageError naming `origin` for a missing '=', an empty name or path, or a
// library file that does not exist.
PluginLibrary ParsePluginSpec(std::string_view spec, std::string_view origin);

// Parses "NAME=PATH:NAME=PATH" (empty pieces are skipped).
std::vector<PluginLibrary> ParsePluginListVariable(std::string_view value, std::string_view variable_name);

// Reads a catalog file. Throws UsageError naming the file and JSON path at fault.
std::vector<PluginLibrary> LoadPluginCatalogFile(const std::filesystem::path& path);

// Builds a row from manifest JSON; `default_name` is used when "ep_name" is absent. Throws UsageError naming
// `origin` and the JSON path at fault.
EpRow RowFromManifest(const nlohmann::json& manifest, const std::string& default_name, std::string_view origin);

// Everything registered for this process: a catalog file, then MODELKIT_EP_LIBRARIES, then the --ep-library specs.
// The catalog file is `catalog_file` (--ep-catalog), else MODELKIT_EP_CATALOG ("none" means no catalog at all),
// else `default_catalog` when that file exists (the plugins shipped beside modelkit); entries of the default
// catalog whose name is also registered explicitly are dropped. Throws UsageError for a duplicate registration name.
std::vector<PluginLibrary> CollectPluginLibraries(const std::vector<std::string>& cli_specs,
                                                  const std::optional<std::filesystem::path>& catalog_file,
                                                  const std::optional<std::filesystem::path>& default_catalog = {});

}  // namespace modelkit::device
