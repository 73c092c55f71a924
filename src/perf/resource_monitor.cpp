#include "modelkit/perf/resource_monitor.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "modelkit/base/host_info.h"
#include "modelkit/perf/process_memory.h"
#include "modelkit/report/stats.h"

namespace modelkit::perf {

std::optional<double> ProcessCpuSeconds() {
  std::ifstream in("/proc/self/stat");
  std::string content;
  std::getline(in, content);
  const size_t close_paren = content.rfind(')');  // the command name may contain spaces
  if (close_paren == std::string::npos) return std::nullopt;
  std::istringstream fields(content.substr(close_paren + 2));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  for (int index = 3; fields >> field; ++index) {  // field 3 is the state
    if (index == 14) utime = std::stoull(field);
    if (index == 15) {
      stime = std::stoull(field);
      const long ticks = sysconf(_SC_CLK_TCK);
      return static_cast<double>(utime + stime) / static_cast<double>(ticks > 0 ? ticks : 100);
    }
  }
  return std::nullopt;
}

ResourceMonitor::ResourceMonitor(std::chrono::milliseconds interval) : interval_(interval) {}

ResourceMonitor::~ResourceMonitor() { Stop(); }

void ResourceMonitor::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void ResourceMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<ResourceSample> ResourceMonitor::Latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (samples_.empty()) return std::nullopt;
  return samples_.back();
}

std::vector<ResourceSample> ResourceMonitor::Samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_;
}

void ResourceMonitor::Run() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_wall = start;
  double last_cpu = ProcessCpuSeconds().value_or(0);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    const Clock::time_point now = Clock::now();
    const double cpu = ProcessCpuSeconds().value_or(last_cpu);
    const double wall = std::chrono::duration<double>(now - last_wall).count();
    ResourceSample sample;
    sample.elapsed_s = std::chrono::duration<double>(now - start).count();
    sample.cpu_pct = wall > 0 ? 100.0 * (cpu - last_cpu) / wall : 0;
    sample.rss_mb = CurrentRssMb().value_or(0);
    last_cpu = cpu;
    last_wall = now;
    lock.lock();
    samples_.push_back(sample);
  }
}

nlohmann::ordered_json MonitorReportJson(const std::vector<ResourceSample>& samples, std::chrono::milliseconds interval,
                                         double running_time_s) {
  using nlohmann::ordered_json;
  std::vector<double> cpu;
  std::vector<double> rss;
  for (const ResourceSample& sample : samples) {
    cpu.push_back(sample.cpu_pct);
    rss.push_back(sample.rss_mb);
  }
  auto rounded = [](std::optional<double> value) {
    return value ? ordered_json(report::RoundTo(*value, 2)) : ordered_json(nullptr);
  };
  auto peak = [](const std::vector<double>& values) -> std::optional<double> {
    if (values.empty()) return std::nullopt;
    return *std::max_element(values.begin(), values.end());
  };
  ordered_json block;
  block["monitor"] = true;
  block["device_kind"] = "cpu";
  block["interval_ms"] = interval.count();
  block["cpu"] = {{"mean_pct", rounded(report::Mean(cpu))},
                  {"peak_pct", rounded(peak(cpu))},
                  {"sample_count", samples.size()},
                  {"logical_cores", LogicalCores()}};
  block["ram"] = {{"used_mb", rounded(samples.empty() ? std::nullopt : std::optional(rss.back()))},
                  {"peak_mb", rounded(peak(rss))}};
  block["running_time_ns"] = static_cast<int64_t>(running_time_s * 1e9);
  return block;
}

}  // namespace modelkit::perf
