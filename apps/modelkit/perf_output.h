// What both paths of `modelkit perf` (ONNX models and genai bundles) do around the benchmark: pick the report file
// before any work (so an existing one fails fast), sample resources with --monitor, and write and show the report.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cmd_perf.h"
#include "modelkit/perf/resource_monitor.h"
#include "modelkit/report/report_blocks.h"

namespace modelkit::app {

// The report context of a run that starts now: tool, ORT version, `timestamp`, the command line and the host's state
// before anything loads. What makes the host a poor place to measure right now is returned in `host_warnings`: the
// caller shows them with the report's other warnings once the run has figures to show (a run that fails prints its
// one error line only).
report::ReportContext StartReportContext(const PerfCommandOptions& options, const std::string& timestamp,
                                         std::vector<std::string>& host_warnings);

// -o (throws UsageError from CheckOutputFile when it may not be written), or the default report path for
// `report_name`, which is never refused: a run that finds it taken writes `<stem>-2.json`, ... instead.
std::filesystem::path ReportOutputPath(const PerfCommandOptions& options, const std::string& report_name,
                                       const std::string& timestamp);

// --monitor's sampler: started at once when asked for, idle otherwise.
class PerfMonitor {
 public:
  explicit PerfMonitor(bool enabled);
  void Stop() { monitor_.Stop(); }
  // " cpu N% rss M MB" for the progress bar, or "" without --monitor or before the first sample.
  std::string LiveText() const;
  // Adds "hw_monitor" to `report` when monitoring.
  void AddTo(nlohmann::ordered_json& report) const;

 private:
  bool enabled_;
  perf::ResourceMonitor monitor_;
  std::chrono::steady_clock::time_point start_;
};

// Writes `report` atomically to `output` and shows it: JSON on stdout with -f json, else `render_text`'s text;
// "Results saved to:" names the file written. Without -o the report never replaces one: when `output` is taken (by
// an earlier run in the same second, or a concurrent one) the next free `<stem>-N.json` is used. Returns the exit code
// (0).
int EmitPerfReport(const nlohmann::ordered_json& report, const PerfCommandOptions& options,
                   const std::filesystem::path& output, std::string (*render_text)(const nlohmann::ordered_json&));

}  // namespace modelkit::app
