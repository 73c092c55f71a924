// The command-line flags that register the same plugin EP libraries in another modelkit process (the EPContext
// compiler runs in a child): each spec as `--ep-library SPEC`, then `--ep-catalog FILE` when one was given.
#pragma once

#include <string>
#include <vector>

namespace modelkit::device {

std::vector<std::string> PluginLibraryFlags(const std::vector<std::string>& ep_library_specs,
                                            const std::string& ep_catalog);

}  // namespace modelkit::device
