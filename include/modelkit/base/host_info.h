// Facts about the host that reports record: CPU model, core count, memory, OS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelkit {

// "model name" from /proc/cpuinfo, or "" when unknown.
std::string CpuModelName();
// Logical cores visible to this process.
int LogicalCores();
// Physical cores this process may run on (its affinity mask, SMT siblings counted once); the CPUs in the mask when
// the kernel gives no topology. At least 1.
int PhysicalCoresAvailable();
// MemTotal from /proc/meminfo in MiB, or 0 when unknown.
uint64_t MemoryTotalMb();
// PRETTY_NAME from /etc/os-release plus the kernel release, e.g. "Debian GNU/Linux 12 (bookworm), Linux 6.1.0".
std::string OsDescription();

// What the host is doing, and how its CPU is set up, at one moment: what changes from run to run and moves a
// benchmark's numbers. A value the host does not expose is nullopt or "".
struct HostState {
  std::optional<double> load_average_1m;        // /proc/loadavg
  std::optional<uint64_t> memory_available_mb;  // MemAvailable from /proc/meminfo
  std::optional<double> cpu_mhz;                // "cpu MHz" of the first CPU in /proc/cpuinfo
  std::string cpu_governor;                     // cpu0's cpufreq scaling_governor; "" without cpufreq (most VMs)
  std::optional<bool> smt_active;               // /sys/devices/system/cpu/smt/active
};

// The host's state now.
HostState ReadHostState();

// This process's argv as the kernel holds it (/proc/self/cmdline); empty when unreadable.
std::vector<std::string> ProcessCommandLine();

}  // namespace modelkit
