#include "ep_flags.h"

#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/device/plugin_flags.h"

namespace modelkit::app {

void EpLibraryFlags::Bind(CLI::App& command) {
  command.add_option(
      "--ep-library", ep_libraries,
      "Register a plugin EP library as NAME=PATH (repeatable; also MODELKIT_EP_LIBRARIES=NAME=PATH:...)");
  command.add_option("--ep-catalog", ep_catalog,
                     "JSON file listing plugin EP libraries and their manifests (also MODELKIT_EP_CATALOG; 'none' "
                     "disables the default <prefix>/lib/modelkit/ep_catalog.json)");
}

CLI::Option* AddDeviceOption(CLI::App& command, device::DeviceRequest& request, const std::string& help) {
  return command
      .add_option_function<std::string>(
          "-d,--device", [&request](const std::string& text) { request = device::DeviceRequest::Parse(text); }, help)
      ->default_str(std::string(request.Name()));
}

CLI::Option* AddDeviceOption(CLI::App& command, std::optional<device::DeviceRequest>& request,
                             const std::string& help) {
  return command.add_option_function<std::string>(
      "-d,--device", [&request](const std::string& text) { request = device::DeviceRequest::Parse(text); }, help);
}

namespace {

// Plugin EPs shipped with modelkit are listed in <prefix>/lib/modelkit/ep_catalog.json beside <prefix>/bin/modelkit
// (the build tree has the same layout).
std::optional<std::filesystem::path> DefaultCatalog() {
  std::error_code ec;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return executable.parent_path().parent_path() / "lib" / "modelkit" / "ep_catalog.json";
}

}  // namespace

std::vector<device::PluginLibrary> EpLibraryFlags::Plugins() const {
  const std::optional<std::filesystem::path> catalog =
      ep_catalog.empty() ? std::nullopt : std::optional<std::filesystem::path>(ep_catalog);
  return device::CollectPluginLibraries(ep_libraries, catalog, DefaultCatalog());
}

std::vector<std::string> EpLibraryFlags::ForwardedArgs() const {
  return device::PluginLibraryFlags(ep_libraries, ep_catalog);
}

device::Machine EpLibraryFlags::LoadRealMachine(BrokenLibraries broken) const {
  const std::vector<device::PluginLibrary> plugins = Plugins();
  device::OrtDiscovery discovery(plugins);
  device::Machine machine = device::LoadMachine(discovery, plugins);
  if (broken == BrokenLibraries::kListed) return machine;
  for (const std::string& spec : ep_libraries) {
    const device::PluginLibrary plugin = device::ParsePluginSpec(spec, "--ep-library");
    for (const device::EpStatus& status : machine.inventory.eps) {
      if (status.library == plugin.library && status.library_refused) {
        throw UsageError("--ep-library " + spec + ": " + status.reason +
                         " (give the path of a plugin EP shared library)");
      }
    }
  }
  return machine;
}

// KEY=VALUE pairs; whitespace around both is stripped and the last value of a key wins.
std::map<std::string, std::string> ParseEpOptions(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> options;
  for (const std::string& pair : pairs) {
    const size_t equals = pair.find('=');
    const std::string key = Trim(pair.substr(0, equals == std::string::npos ? 0 : equals));
    if (equals == std::string::npos || key.empty()) {
      throw UsageError("invalid --ep-options '" + pair + "'; expected KEY=VALUE, e.g. --ep-options device_type=NPU");
    }
    options[key] = Trim(pair.substr(equals + 1));
  }
  return options;
}

}  // namespace modelkit::app
