// Process-wide counters per EP name, so tests can prove what the simulated NPU compiled and ran. Read from outside
// through the C functions declared in sim_npu.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace sim_npu {

struct EpCounters {
  std::atomic<int64_t> partitions_compiled{0};  // fused partitions compiled from source nodes
  std::atomic<int64_t> contexts_loaded{0};      // partitions restored from EPContext nodes
  std::atomic<int64_t> nodes_claimed{0};        // nodes claimed in GetCapability (EPContext nodes included)
  std::atomic<int64_t> partition_runs{0};       // partition executions

  // The run counter of one partition, by fused node name (the same model compiled again shares the name). The
  // reference stays valid for the life of the process.
  std::atomic<int64_t>& RunsOf(const std::string& partition_name);
  // "<partition name> <runs>\n" per partition, in name order.
  std::string DescribePartitionRuns();
  void Reset();

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<std::atomic<int64_t>>> runs_by_partition_;
};

// The counters of `ep_name`, created on first use; the reference stays valid for the life of the process.
EpCounters& CountersFor(const std::string& ep_name);

// Sets every counter of every EP to zero.
void ResetAllCounters();

}  // namespace sim_npu
