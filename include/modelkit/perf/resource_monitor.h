// --monitor: samples this process's CPU utilisation and resident memory in a background thread while the
// benchmark runs. The thread sleeps between samples (default every 200 ms) and reads two /proc files per sample,
// so it does not disturb what is measured.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::perf {

struct ResourceSample {
  double elapsed_s = 0;
  double cpu_pct = 0;  // process CPU time over wall time in the interval; 100 = one core busy
  double rss_mb = 0;
};

class ResourceMonitor {
 public:
  explicit ResourceMonitor(std::chrono::milliseconds interval = std::chrono::milliseconds(200));
  ~ResourceMonitor();  // stops the thread
  ResourceMonitor(const ResourceMonitor&) = delete;
  ResourceMonitor& operator=(const ResourceMonitor&) = delete;

  void Start();
  void Stop();
  // The newest sample, if any (for a live view).
  std::optional<ResourceSample> Latest() const;
  // All samples so far.
  std::vector<ResourceSample> Samples() const;

 private:
  void Run();

  std::chrono::milliseconds interval_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<ResourceSample> samples_;
};

// Process CPU time (user + system) in seconds, from /proc/self/stat; nullopt when unreadable.
std::optional<double> ProcessCpuSeconds();

// The report's "hw_monitor" block: {"monitor": true, "device_kind": "cpu", "interval_ms",
// "cpu": {"mean_pct", "peak_pct", "sample_count", "logical_cores"}, "ram": {"used_mb", "peak_mb"},
// "running_time_ns"}; percentages and MiB with 2 decimals; null where there are no samples.
nlohmann::ordered_json MonitorReportJson(const std::vector<ResourceSample>& samples, std::chrono::milliseconds interval,
                                         double running_time_s);

}  // namespace modelkit::perf
