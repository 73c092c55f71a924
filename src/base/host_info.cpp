#include "modelkit/base/host_info.h"

#include <sys/utsname.h>

#include <fstream>
#include <thread>

#include "modelkit/base/strings.h"

namespace modelkit {
namespace {

// The value after "key:" (or "key=") on the first line starting with `key` in a /proc- or os-release-style file.
std::string FindValue(const char* path, const std::string& key, char separator) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t at = line.find(separator);
    if (at == std::string::npos) continue;
    if (Trim(line.substr(0, at)) != key) continue;
    std::string value = Trim(line.substr(at + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return value;
  }
  return {};
}

}  // namespace

std::string CpuModelName() { return FindValue("/proc/cpuinfo", "model name", ':'); }

int LogicalCores() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

uint64_t MemoryTotalMb() {
  const std::string value = FindValue("/proc/meminfo", "MemTotal", ':');  // "24567890 kB"
  try {
    return value.empty() ? 0 : std::stoull(value) / 1024;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string OsDescription() {
  std::string description = FindValue("/etc/os-release", "PRETTY_NAME", '=');
  utsname names{};
  if (uname(&names) == 0) {
    description += (description.empty() ? "" : ", ") + std::string(names.sysname) + " " + names.release;
  }
  return description;
}

}  // namespace modelkit
