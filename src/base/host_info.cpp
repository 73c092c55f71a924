#include "modelkit/base/host_info.h"

#include <sched.h>
#include <sys/utsname.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

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

int PhysicalCoresAvailable() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return LogicalCores();
  std::set<std::pair<std::string, std::string>> cores;  // (package, core) of each CPU this process may run on
  int cpus = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    ++cpus;
    const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::string package, core;
    std::ifstream(topology + "physical_package_id") >> package;
    std::ifstream(topology + "core_id") >> core;
    if (package.empty() || core.empty()) return cpus == 0 ? 1 : CPU_COUNT(&mask);  // no topology: count CPUs
    cores.emplace(package, core);
  }
  return cores.empty() ? 1 : static_cast<int>(cores.size());
}

uint64_t MemoryTotalMb() {
  const std::string value = FindValue("/proc/meminfo", "MemTotal", ':');  // "24567890 kB"
  try {
    return value.empty() ? 0 : std::stoull(value) / 1024;
  } catch (const std::exception&) {
    return 0;
  }
}

HostState ReadHostState() {
  HostState state;
  double load = 0;
  if (std::ifstream("/proc/loadavg") >> load) state.load_average_1m = load;
  const std::string available = FindValue("/proc/meminfo", "MemAvailable", ':');  // "24567890 kB"
  uint64_t available_kb = 0;
  if (std::istringstream(available) >> available_kb) state.memory_available_mb = available_kb / 1024;
  double mhz = 0;
  if (std::istringstream(FindValue("/proc/cpuinfo", "cpu MHz", ':')) >> mhz) state.cpu_mhz = mhz;
  std::ifstream("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") >> state.cpu_governor;
  int smt = 0;
  if (std::ifstream("/sys/devices/system/cpu/smt/active") >> smt) state.smt_active = smt != 0;
  return state;
}

std::vector<std::string> ProcessCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
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
