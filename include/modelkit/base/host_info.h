// Facts about the host that reports record: CPU model, core count, memory, OS.
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace modelkit
