#include "run_counters.h"

#include <map>
#include <memory>
#include <mutex>

namespace sim_npu {
namespace {

std::mutex& CountersMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, std::unique_ptr<EpCounters>>& AllCounters() {
  static auto* counters = new std::map<std::string, std::unique_ptr<EpCounters>>();  // never destroyed: read at exit
  return *counters;
}

}  // namespace

EpCounters& CountersFor(const std::string& ep_name) {
  std::lock_guard<std::mutex> lock(CountersMutex());
  std::unique_ptr<EpCounters>& slot = AllCounters()[ep_name];
  if (!slot) slot = std::make_unique<EpCounters>();
  return *slot;
}

void ResetAllCounters() {
  std::lock_guard<std::mutex> lock(CountersMutex());
  for (auto& [name, counters] : AllCounters()) {
    counters->partitions_compiled = 0;
    counters->contexts_loaded = 0;
    counters->nodes_claimed = 0;
    counters->partition_runs = 0;
  }
}

}  // namespace sim_npu
