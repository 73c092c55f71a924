#include "modelkit/base/host_info.h"

#include <sched.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace modelkit {
namespace {

// Distinct (core, socket) pairs of the online CPUs as util-linux's lscpu reports them; nullopt without lscpu.
std::optional<int> LscpuPhysicalCores() {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("lscpu -p=CORE,SOCKET 2>/dev/null", "r"), pclose);
  if (!pipe) return std::nullopt;
  std::set<std::pair<std::string, std::string>> cores;
  char line[256];
  while (fgets(line, sizeof line, pipe.get()) != nullptr) {
    if (line[0] == '#') continue;
    const std::string text(line);
    const size_t comma = text.find(',');
    if (comma == std::string::npos) continue;
    cores.emplace(text.substr(0, comma), text.substr(comma + 1));
  }
  if (cores.empty()) return std::nullopt;
  return static_cast<int>(cores.size());
}

TEST(HostInfo, PhysicalCoresMatchLscpuWhenEveryCpuIsAllowed) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  if (CPU_COUNT(&mask) != LogicalCores()) GTEST_SKIP() << "this process may not run on every CPU";
  const std::optional<int> expected = LscpuPhysicalCores();
  if (!expected) GTEST_SKIP() << "no lscpu";
  EXPECT_EQ(PhysicalCoresAvailable(), *expected);
  EXPECT_LE(PhysicalCoresAvailable(), LogicalCores());
}

TEST(HostInfo, PhysicalCoresFollowTheAffinityMask) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);  // this thread only
  const int cores = PhysicalCoresAvailable();
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
  EXPECT_EQ(cores, 1);
}

}  // namespace
}  // namespace modelkit
