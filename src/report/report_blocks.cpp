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
