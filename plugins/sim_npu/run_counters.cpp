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

std::atomic<int64_t>& EpCounters::RunsOf(const std::string& partition_name) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<std::atomic<int64_t>>& slot = runs_by_partition_[partition_name];
  if (!slot) slot = std::make_unique<std::atomic<int64_t>>(0);
  return *slot;
}

std::string EpCounters::DescribePartitionRuns() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string text;
  for (const auto& [name, runs] : runs_by_partition_) text += name + " " + std::to_string(runs->load()) + "\n";
  return text;
}

void EpCounters::Reset() {
  partitions_compiled = 0;
  contexts_loaded = 0;
  nodes_claimed = 0;
  partition_runs = 0;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [name, runs] : runs_by_partition_) *runs = 0;
}

EpCounters& CountersFor(const std::string& ep_name) {
  std::lock_guard<std::mutex> lock(CountersMutex());
  std::unique_ptr<EpCounters>& slot = AllCounters()[ep_name];
  if (!slot) slot = std::make_unique<EpCounters>();
  return *slot;
}

void ResetAllCounters() {
  std::lock_guard<std::mutex> lock(CountersMutex());
  for (auto& [name, counters] : AllCounters()) counters->Reset();
}

}  // namespace sim_npu
