#include "compatibility.h"

namespace sim_npu {
namespace {
constexpr std::string_view kVersionKey = ";version=";
}  // namespace

std::string CompatibilityInfo(std::string_view ep_name, std::string_view ep_version) {
  return std::string(ep_name) + std::string(kVersionKey) + std::string(ep_version);
}

Compatibility CheckCompatibility(std::string_view info, std::string_view ep_name, std::string_view ep_version) {
  const size_t at = info.find(kVersionKey);
  if (at == std::string_view::npos || info.substr(0, at) != ep_name) return Compatibility::kUnsupported;
  return info.substr(at + kVersionKey.size()) == ep_version ? Compatibility::kOptimal
                                                            : Compatibility::kPreferRecompilation;
}

}  // namespace sim_npu
