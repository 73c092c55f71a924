#include "modelkit/device/plugin_flags.h"

namespace modelkit::device {

std::vector<std::string> PluginLibraryFlags(const std::vector<std::string>& ep_library_specs,
                                            const std::string& ep_catalog) {
  std::vector<std::string> args;
  for (const std::string& spec : ep_library_specs) {
    args.push_back("--ep-library");
    args.push_back(spec);
  }
  if (!ep_catalog.empty()) {
    args.push_back("--ep-catalog");
    args.push_back(ep_catalog);
  }
  return args;
}

}  // namespace modelkit::device
