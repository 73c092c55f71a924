// Makes the software Vulkan driver fetched by scripts/fetch_lavapipe.sh visible to the WebGPU EP.
#pragma once

#include <map>
#include <string>

namespace modelkit::test {

// Environment for a child process that should see the lavapipe adapter (LD_LIBRARY_PATH, VK_ICD_FILENAMES).
std::map<std::string, std::string> LavapipeEnvironment();

// For this process: loads the Vulkan loader by absolute path (a later dlopen("libvulkan.so.1") by Dawn finds it
// by SONAME) and points VK_ICD_FILENAMES at lavapipe. Call before the first WebGPU session. Returns "" on success,
// else what is missing.
std::string UseLavapipeInThisProcess();

}  // namespace modelkit::test
