#include "perf_output.h"

#include <iostream>
#include <system_error>

#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/base/host_info.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/report/html_report.h"
#include "modelkit/report/onnx_report.h"
#include "modelkit/report/table_formats.h"
#include "modelkit/version.h"

namespace modelkit::app {

namespace fs = std::filesystem;

namespace {
constexpr std::chrono::milliseconds kMonitorInterval(200);
}  // namespace

report::ReportContext StartReportContext(const PerfCommandOptions& options, const std::string& timestamp,
                                         std::vector<std::string>& host_warnings) {
  report::ReportContext context{options.model, kVersion, kGitCommit, timestamp, ort::RuntimeVersion(), {}, {}};
  context.command_line = ProcessCommandLine();
  context.host_at_start = ReadHostState();
  host_warnings = report::HostStateWarnings(context.host_at_start, LogicalCores());
  return context;
}

fs::path ReportOutputPath(const PerfCommandOptions& options, const std::string& report_name,
                          const std::string& timestamp) {
  // The default name is never checked here: EmitPerfReport takes the next free name when it is taken.
  if (options.output.empty()) return report::DefaultReportPath(report_name, timestamp);
  const fs::path output(options.output);
  CheckOutputFile(output, options.overwrite);
  return output;
}

PerfMonitor::PerfMonitor(bool enabled)
    : enabled_(enabled), monitor_(kMonitorInterval), start_(std::chrono::steady_clock::now()) {
  if (enabled_) monitor_.Start();
}

std::string PerfMonitor::LiveText() const {
  const auto sample = enabled_ ? monitor_.Latest() : std::nullopt;
  if (!sample) return "";
  return " cpu " + std::to_string(static_cast<int>(sample->cpu_pct)) + "% rss " +
         std::to_string(static_cast<int>(sample->rss_mb)) + " MB";
}

void PerfMonitor::AddTo(nlohmann::ordered_json& report) const {
  if (!enabled_) return;
  const double running_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  report["hw_monitor"] = perf::MonitorReportJson(monitor_.Samples(), kMonitorInterval, running_s);
}

int EmitPerfReport(const nlohmann::ordered_json& report, const PerfCommandOptions& options, const fs::path& output,
                   std::string (*render_text)(const nlohmann::ordered_json&)) {
  const std::string content = report.dump(2) + "\n";
  fs::path written = output;
  if (options.output.empty()) {
    written = WriteNewFileAtomically(output, content);
  } else {
    WriteFileAtomically(output, content, options.overwrite);
  }
  if (options.format == "text") {
    std::cout << render_text(report) << "Results saved to: " << written.string() << "\n";
    return 0;
  }
  if (options.format == "json") {
    std::cout << report.dump(2) << "\n";
  } else if (options.format == "html") {
    std::cout << report::HtmlReport({{written.string(), report}});
  } else {
    const report::Table table = report::ReportTable(report);
    std::cout << (options.format == "csv"     ? report::TableCsv(table)
                  : options.format == "jsonl" ? report::TableJsonLines(table)
                                              : report::TableMarkdown(table));
  }
  if (options.quiet == 0) std::cerr << "Results saved to: " << written.string() << "\n";
  return 0;
}

}  // namespace modelkit::app
