#include "ep_name.h"

namespace sim_npu {

std::string EpNameFromRegistration(std::string_view registration_name) {
  constexpr std::string_view kVirtual = ".virtual";
  constexpr std::string_view kSuffix = "ExecutionProvider";
  std::string name(registration_name);
  if (name.size() > kVirtual.size() && name.ends_with(kVirtual)) name.resize(name.size() - kVirtual.size());
  if (!name.ends_with(kSuffix)) name += kSuffix;
  return name;
}

}  // namespace sim_npu
