// What every perf report shares: the facts about the run that a benchmark does not know, the `tool` and `host`
// blocks built from them, the RSS memory block, and the number formatting both JSON and console use.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace modelkit::report {

inline constexpr int kPerfReportSchemaVersion = 2;

// Facts about the run that the benchmark itself does not know.
struct ReportContext {
  std::string model_id;  // the -m string as given
  std::string tool_version;
  std::string git_commit;
  std::string timestamp_utc;  // ISO-8601, e.g. "2026-12-03T08:15:00Z"
  std::string ort_version;
};

// {"name": "modelkit", "version", "git_commit"} from the context.
nlohmann::ordered_json ToolJson(const ReportContext& context);

// {"cpu_model", "logical_cores", "memory_total_mb" (null when unknown), "os", "ort_version"}: this host as
// read now, plus the ORT version from the context.
nlohmann::ordered_json HostJson(const ReportContext& context);

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
