#include "modelkit/perf/process_memory.h"

#include <fstream>
#include <string>

namespace modelkit::perf {
namespace {

// A "Key:   1234 kB" line of /proc/self/status, in MiB.
std::optional<double> StatusKb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    try {
      return std::stod(line.substr(key.size() + 1)) / 1024.0;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> CurrentRssMb() { return StatusKb("VmRSS"); }
std::optional<double> PeakRssMb() { return StatusKb("VmHWM"); }

}  // namespace modelkit::perf
