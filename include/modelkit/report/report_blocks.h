// What every perf report shares: the facts about the run that a benchmark does not know, the `tool` and `host`
// blocks built from them, the RSS memory block, and the number formatting both JSON and console use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/base/host_info.h"

namespace modelkit::report {

inline constexpr int kPerfReportSchemaVersion = 2;

// Facts about the run that the benchmark itself does not know.
struct ReportContext {
  std::string model_id;  // the -m string as given
  std::string tool_version;
  std::string git_commit;
  std::string timestamp_utc;  // ISO-8601, e.g. "2026-12-03T08:15:00Z"
  std::string ort_version;
  std::vector<std::string> command_line;  // argv as the process got it
  HostState host_at_start;                // read before the model loaded
};

// {"name": "modelkit", "version", "git_commit"} from the context.
nlohmann::ordered_json ToolJson(const ReportContext& context);

// {"cpu_model", "logical_cores", "memory_total_mb" (null when unknown), "os", "ort_version"}: this host as
// read now, plus the ORT version from the context.
nlohmann::ordered_json HostJson(const ReportContext& context);

// The `reproducibility` block: {"command_line": [argv...], "settings": `settings` (every effective setting of the
// run, from the runtime's report), "host_at_start": {"cpu_mhz", "cpu_governor", "smt_active", "load_average_1m",
// "memory_available_mb"}} (null where the host does not say).
nlohmann::ordered_json ReproducibilityJson(const ReportContext& context, nlohmann::ordered_json settings);

// Why numbers taken now may not be the machine's best: a 1-minute load average of at least half the logical cores
// (other work competes for them), a CPU frequency governor other than "performance" (clocks ramp and drop). Nothing
// for what the host does not expose (no cpufreq in most VMs).
std::vector<std::string> HostStateWarnings(const HostState& state, int logical_cores);

// "Host at start: load 0.42 on 2 cores, 21345 MB available, 2096 MHz, governor -, SMT off" from a report's
// `reproducibility` and `host` blocks ("-" for what is unknown).
std::string HostAtStartText(const nlohmann::ordered_json& report);

// The RSS checkpoints of winml-cli's memory block (MiB, 2 decimals): rss_baseline_mb, rss_after_compile_mb
// (= after load), rss_after_inference_mb, rss_checkpoint_peak_mb (max of the measured checkpoints) and the
// load / inference / total deltas. A checkpoint or delta that was not measured is null.
nlohmann::ordered_json RssMemoryJson(std::optional<double> baseline_mb, std::optional<double> after_load_mb,
                                     std::optional<double> after_inference_mb);

// `value` rounded half away from zero to `decimals` places, or null when absent.
nlohmann::ordered_json RoundedOrNull(std::optional<double> value, int decimals);

// A JSON number printed with exactly `decimals` decimals, or "-" when it is null.
std::string FixedOrDash(const nlohmann::ordered_json& value, int decimals);

}  // namespace modelkit::report
