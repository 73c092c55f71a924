#include "modelkit/report/report_blocks.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <sstream>

#include "modelkit/base/host_info.h"
#include "modelkit/base/huge_pages.h"
#include "modelkit/report/stats.h"

namespace modelkit::report {

using nlohmann::ordered_json;

ordered_json ToolJson(const ReportContext& context) {
  return {{"name", "modelkit"}, {"version", context.tool_version}, {"git_commit", context.git_commit}};
}

ordered_json HugePagesJson() {
  const std::string mode = TransparentHugePageMode();
  return {{"transparent", mode.empty() ? ordered_json(nullptr) : ordered_json(mode)},
          {"malloc", MallocUsesHugePages()}};
}

ordered_json HostJson(const ReportContext& context) {
  const uint64_t memory_total = MemoryTotalMb();
  return {{"cpu_model", CpuModelName()},
          {"logical_cores", LogicalCores()},
          {"memory_total_mb", memory_total ? ordered_json(memory_total) : ordered_json(nullptr)},
          {"os", OsDescription()},
          {"ort_version", context.ort_version},
          {"huge_pages", HugePagesJson()}};
}

ordered_json ReproducibilityJson(const ReportContext& context, ordered_json settings) {
  const HostState& host = context.host_at_start;
  auto or_null = [](const auto& value) { return value ? ordered_json(*value) : ordered_json(nullptr); };
  ordered_json at_start;
  at_start["cpu_mhz"] = RoundedOrNull(host.cpu_mhz, 0);
  at_start["cpu_governor"] = host.cpu_governor.empty() ? ordered_json(nullptr) : ordered_json(host.cpu_governor);
  at_start["smt_active"] = or_null(host.smt_active);
  at_start["load_average_1m"] = RoundedOrNull(host.load_average_1m, 2);
  at_start["memory_available_mb"] = or_null(host.memory_available_mb);
  return {{"command_line", context.command_line}, {"settings", std::move(settings)}, {"host_at_start", at_start}};
}

std::vector<std::string> HostStateWarnings(const HostState& state, int logical_cores) {
  std::vector<std::string> warnings;
  if (state.load_average_1m && *state.load_average_1m >= logical_cores / 2.0) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << "the machine looks busy: load average " << *state.load_average_1m
         << " on " << logical_cores << " logical cores at the start; other work competes for them and the figures "
         << "may be low and noisy";
    warnings.push_back(text.str());
  }
  if (!state.cpu_governor.empty() && state.cpu_governor != "performance") {
    warnings.push_back("the CPU frequency governor is '" + state.cpu_governor +
                       "', not 'performance': clocks ramp and drop during the run, so the figures vary more");
  }
  return warnings;
}

std::string HostAtStartText(const ordered_json& report) {
  if (!report.contains("reproducibility")) return "";
  const ordered_json& at_start = report.at("reproducibility").at("host_at_start");
  const ordered_json& smt = at_start.at("smt_active");
  const ordered_json& governor = at_start.at("cpu_governor");
  std::ostringstream out;
  out << "Host at start: load " << FixedOrDash(at_start.at("load_average_1m"), 2) << " on "
      << report.at("host").at("logical_cores").get<int>() << " cores, "
      << (at_start.at("memory_available_mb").is_null() ? "-" : at_start.at("memory_available_mb").dump())
      << " MB available, " << FixedOrDash(at_start.at("cpu_mhz"), 0) << " MHz, governor "
      << (governor.is_null() ? "-" : governor.get<std::string>()) << ", SMT "
      << (smt.is_null()     ? "-"
          : smt.get<bool>() ? "on"
                            : "off")
      << "\n";
  return out.str();
}

ordered_json RssMemoryJson(std::optional<double> baseline_mb, std::optional<double> after_load_mb,
                           std::optional<double> after_inference_mb) {
  ordered_json block;
  block["rss_baseline_mb"] = RoundedOrNull(baseline_mb, 2);
  block["rss_after_compile_mb"] = RoundedOrNull(after_load_mb, 2);
  block["rss_after_inference_mb"] = RoundedOrNull(after_inference_mb, 2);
  std::optional<double> peak;
  for (const auto& checkpoint : {baseline_mb, after_load_mb, after_inference_mb}) {
    if (checkpoint) peak = peak ? std::max(*peak, *checkpoint) : *checkpoint;
  }
  block["rss_checkpoint_peak_mb"] = RoundedOrNull(peak, 2);
  auto delta = [](std::optional<double> from, std::optional<double> to) -> std::optional<double> {
    if (!from || !to) return std::nullopt;
    return *to - *from;
  };
  block["rss_model_load_delta_mb"] = RoundedOrNull(delta(baseline_mb, after_load_mb), 2);
  block["rss_inference_delta_mb"] = RoundedOrNull(delta(after_load_mb, after_inference_mb), 2);
  block["rss_total_delta_mb"] = RoundedOrNull(delta(baseline_mb, after_inference_mb), 2);
  return block;
}

ordered_json RoundedOrNull(std::optional<double> value, int decimals) {
  return value ? ordered_json(RoundTo(*value, decimals)) : ordered_json(nullptr);
}

std::string FixedOrDash(const ordered_json& value, int decimals) {
  if (value.is_null()) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(decimals) << value.get<double>();
  return out.str();
}

}  // namespace modelkit::report
