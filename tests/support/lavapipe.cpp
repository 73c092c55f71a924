#include "support/lavapipe.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <filesystem>

namespace modelkit::test {
namespace {

std::string VulkanDir() { return MODELKIT_VULKAN_DIR; }

}  // namespace

std::map<std::string, std::string> LavapipeEnvironment() {
  return {{"LD_LIBRARY_PATH", VulkanDir() + "/lib"}, {"VK_ICD_FILENAMES", VulkanDir() + "/lvp_icd.json"}};
}

std::string UseLavapipeInThisProcess() {
  const std::string icd = VulkanDir() + "/lvp_icd.json";
  const std::string loader = VulkanDir() + "/lib/libvulkan.so.1";
  if (!std::filesystem::exists(icd) || !std::filesystem::exists(loader)) {
    return "lavapipe is not set up in " + VulkanDir() + ": run scripts/fetch_lavapipe.sh (scripts/setup.sh does)";
  }
  if (dlopen(loader.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) return std::string("dlopen: ") + dlerror();
  setenv("VK_ICD_FILENAMES", icd.c_str(), 1);
  return {};
}

}  // namespace modelkit::test
