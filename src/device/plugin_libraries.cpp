#include "modelkit/device/plugin_libraries.h"

#include <algorithm>
#include <cstdlib>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"

namespace modelkit::device {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json ParseJsonFile(const fs::path& path, const std::string& what) {
  json root = json::parse(ReadTextFile(path, what), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) throw UsageError(what + " '" + path.string() + "' is not valid JSON");
  return root;
}

fs::path CheckedLibraryPath(const fs::path& raw, std::string_view origin) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(raw, ec);
  if (ec || !fs::is_regular_file(absolute, ec)) {
    throw UsageError("plugin EP library '" + raw.string() + "' (" + std::string(origin) + ") does not exist");
  }
  return absolute.lexically_normal();
}

// "<dir>/<stem>.manifest.json" beside a library, if present.
std::optional<fs::path> ManifestBeside(const fs::path& library) {
  fs::path candidate = library.parent_path() / (library.stem().string() + ".manifest.json");
  std::error_code ec;
  return fs::is_regular_file(candidate, ec) ? std::optional<fs::path>(candidate) : std::nullopt;
}

void AttachManifestBeside(PluginLibrary& plugin) {
  if (const auto manifest = ManifestBeside(plugin.library)) {
    EpRow row = RowFromManifest(ParseJsonFile(*manifest, "EP manifest"), plugin.registration_name, manifest->string());
    row.plugin_library = plugin.library;
    row.registration_name = plugin.registration_name;
    plugin.manifest_row = std::move(row);
  }
}

std::vector<std::string> StringList(const json& value, const std::string& path, std::string_view origin) {
  if (!value.is_array()) throw UsageError(std::string(origin) + ": " + path + ": expected an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      throw UsageError(std::string(origin) + ": " + path + "[" + std::to_string(i) + "]: expected a string");
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

bool Bool(const json& manifest, const char* key, std::string_view origin) {
  if (!manifest.contains(key)) return false;
  if (!manifest.at(key).is_boolean()) {
    throw UsageError(std::string(origin) + ": $." + key + ": expected true or false");
  }
  return manifest.at(key).get<bool>();
}

}  // namespace

PluginLibrary ParsePluginSpec(std::string_view spec, std::string_view origin) {
  const size_t equals = spec.find('=');
  const std::string name = Trim(spec.substr(0, equals == std::string_view::npos ? 0 : equals));
  const std::string path = equals == std::string_view::npos ? "" : Trim(spec.substr(equals + 1));
  if (equals == std::string_view::npos || name.empty() || path.empty()) {
    throw UsageError("invalid plugin EP library '" + std::string(spec) + "' (" + std::string(origin) +
                     "); expected NAME=PATH, e.g. SimNpu=/path/to/libsim_npu.so");
  }
  PluginLibrary plugin;
  plugin.registration_name = name;
  plugin.origin = std::string(origin) + " " + std::string(spec);
  plugin.library = CheckedLibraryPath(path, plugin.origin);
  AttachManifestBeside(plugin);
  return plugin;
}

std::vector<PluginLibrary> ParsePluginListVariable(std::string_view value, std::string_view variable_name) {
  std::vector<PluginLibrary> plugins;
  for (const std::string& piece : Split(value, ':')) {
    if (Trim(piece).empty()) continue;
    plugins.push_back(ParsePluginSpec(piece, variable_name));
  }
  return plugins;
}

EpRow RowFromManifest(const json& manifest, const std::string& default_name, std::string_view origin) {
  if (!manifest.is_object()) throw UsageError(std::string(origin) + ": $: expected a JSON object");
  EpRow row;
  row.name = default_name;
  if (manifest.contains("ep_name")) {
    if (!manifest.at("ep_name").is_string() || manifest.at("ep_name").get<std::string>().empty()) {
      throw UsageError(std::string(origin) + ": $.ep_name: expected a non-empty string");
    }
    row.name = manifest.at("ep_name").get<std::string>();
  }
  if (manifest.contains("aliases")) row.aliases = StringList(manifest.at("aliases"), "$.aliases", origin);
  if (manifest.contains("devices")) {
    const std::vector<std::string> devices = StringList(manifest.at("devices"), "$.devices", origin);
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::optional<DeviceKind> kind = ParseDeviceKind(devices[i]);
      if (!kind) {
        throw UsageError(std::string(origin) + ": $.devices[" + std::to_string(i) + "]: unknown device '" + devices[i] +
                         "'; expected npu, gpu or cpu");
      }
      row.devices.push_back(*kind);
    }
  }
  row.ep_context = Bool(manifest, "ep_context", origin);
  row.device_type_option = Bool(manifest, "device_type_option", origin);
  if (manifest.contains("provider_option_keys")) {
    row.provider_option_keys = StringList(manifest.at("provider_option_keys"), "$.provider_option_keys", origin);
  }
  return row;
}

std::vector<PluginLibrary> LoadPluginCatalogFile(const fs::path& path) {
  const json root = ParseJsonFile(path, "EP catalog file");
  const std::string origin = path.string();
  if (!root.is_object() || !root.contains("plugins") || !root.at("plugins").is_array()) {
    throw UsageError(origin + ": $.plugins: expected an array of plugin entries");
  }
  const fs::path base = fs::absolute(path).parent_path();
  std::vector<PluginLibrary> plugins;
  const json& entries = root.at("plugins");
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at = "$.plugins[" + std::to_string(i) + "]";
    const json& entry = entries[i];
    auto text = [&](const char* key, bool required) -> std::string {
      if (!entry.is_object() || !entry.contains(key)) {
        if (required) throw UsageError(origin + ": " + at + "." + key + ": missing");
        return {};
      }
      if (!entry.at(key).is_string() || entry.at(key).get<std::string>().empty()) {
        throw UsageError(origin + ": " + at + "." + key + ": expected a non-empty string");
      }
      return entry.at(key).get<std::string>();
    };
    PluginLibrary plugin;
    plugin.registration_name = text("name", true);
    plugin.origin = origin + " " + at;
    plugin.library = CheckedLibraryPath(base / text("library", true), plugin.origin);
    json manifest = json::object();
    if (const std::string manifest_path = text("manifest", false); !manifest_path.empty()) {
      manifest = ParseJsonFile(base / manifest_path, "EP manifest");
    } else if (const auto beside = ManifestBeside(plugin.library)) {
      manifest = ParseJsonFile(*beside, "EP manifest");
    }
    if (entry.contains("row")) {
      if (!entry.at("row").is_object()) throw UsageError(origin + ": " + at + ".row: expected an object");
      manifest.update(entry.at("row"));
    }
    if (!manifest.empty()) {
      EpRow row = RowFromManifest(manifest, plugin.registration_name, plugin.origin);
      row.plugin_library = plugin.library;
      row.registration_name = plugin.registration_name;
      plugin.manifest_row = std::move(row);
    }
    plugins.push_back(std::move(plugin));
  }
  return plugins;
}

std::vector<PluginLibrary> CollectPluginLibraries(const std::vector<std::string>& cli_specs,
                                                  const std::optional<fs::path>& catalog_file,
                                                  const std::optional<fs::path>& default_catalog) {
  std::vector<PluginLibrary> explicit_plugins;
  if (const char* env = std::getenv("MODELKIT_EP_LIBRARIES"); env != nullptr) {
    explicit_plugins = ParsePluginListVariable(env, "MODELKIT_EP_LIBRARIES");
  }
  for (const std::string& spec : cli_specs) explicit_plugins.push_back(ParsePluginSpec(spec, "--ep-library"));

  std::vector<PluginLibrary> plugins;
  const char* env_catalog = std::getenv("MODELKIT_EP_CATALOG");
  const bool catalogs_disabled = env_catalog != nullptr && std::string(env_catalog) == "none";
  std::error_code ec;
  if (catalog_file) {
    plugins = LoadPluginCatalogFile(*catalog_file);
  } else if (env_catalog != nullptr && *env_catalog != '\0' && !catalogs_disabled) {
    plugins = LoadPluginCatalogFile(env_catalog);
  } else if (!catalogs_disabled && default_catalog && fs::is_regular_file(*default_catalog, ec)) {
    for (PluginLibrary& plugin : LoadPluginCatalogFile(*default_catalog)) {
      const bool overridden = std::any_of(
          explicit_plugins.begin(), explicit_plugins.end(),
          [&](const PluginLibrary& p) { return EqualsIgnoreCase(p.registration_name, plugin.registration_name); });
      if (!overridden) plugins.push_back(std::move(plugin));
    }
  }
  for (PluginLibrary& plugin : explicit_plugins) plugins.push_back(std::move(plugin));

  for (size_t i = 0; i < plugins.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (EqualsIgnoreCase(plugins[i].registration_name, plugins[j].registration_name)) {
        throw UsageError("plugin EP name '" + plugins[i].registration_name + "' is registered twice (" +
                         plugins[j].origin + " and " + plugins[i].origin + ")");
      }
    }
  }
  return plugins;
}

}  // namespace modelkit::device
