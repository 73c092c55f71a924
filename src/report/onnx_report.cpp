#include "modelkit/report/onnx_report.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "modelkit/base/files.h"
#include "modelkit/base/text_table.h"
#include "modelkit/report/duration_text.h"
#include "modelkit/report/stats.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;

ordered_json DeclaredShape(const TensorSpec& spec) {
  if (!spec.shape_known) return nullptr;
  ordered_json dims = ordered_json::array();
  for (const Dim& dim : spec.dims) {
    if (dim.value && *dim.value >= 0) {
      dims.push_back(*dim.value);
    } else if (!dim.param.empty()) {
      dims.push_back(dim.param);
    } else {
      dims.push_back(nullptr);
    }
  }
  return dims;
}

std::string ShapeText(const ordered_json& shape) {
  if (shape.is_null()) return "?";
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i].is_string() ? shape[i].get<std::string>() : shape[i].is_null() ? "?" : shape[i].dump();
  }
  return out + "]";
}

// "Model:", "Device:" and a "Placement:" line per session: what a single run's and a sweep's text begin with.
std::string RunHeaderText(const ordered_json& report) {
  const ordered_json& info = report.at("benchmark_info");
  std::ostringstream out;
  out << "Model:   " << info.at("running_model_path").get<std::string>() << "\n";
  out << "Device:  " << info.at("device").get<std::string>() << " (" << info.at("resolved_device").get<std::string>()
      << ") / " << info.at("ep").get<std::string>() << "\n";
  if (report.contains("placement")) {
    for (const ordered_json& session : report.at("placement")) out << "Placement: " << PlacementLine(session) << "\n";
  }
  return out.str();
}

}  // namespace

std::string UtcTimestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::ostringstream out;
  out << std::put_time(&utc, "%Y-%m-%dT%H:%M:%SZ");
  return out.str();
}

std::filesystem::path DefaultReportPath(const std::filesystem::path& model, const std::string& timestamp_utc) {
  const std::filesystem::path cache = UserCacheDir();
  std::string slug;
  for (char c : model.stem().string()) {
    const auto u = static_cast<unsigned char>(c);
    slug += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  if (slug.empty()) slug = "model";
  std::string stamp;  // 2026-12-03T08:15:00Z -> 20261203-081500
  for (char c : timestamp_utc) {
    if (std::isdigit(static_cast<unsigned char>(c))) stamp += c;
    if (c == 'T') stamp += '-';
  }
  return cache / "modelkit" / "perf" / slug / (stamp + ".json");
}

ordered_json OnnxReportJson(const OnnxPerfOptions& options, const OnnxPerfResult& result,
                            const ReportContext& context) {
  ordered_json report;
  report["schema_version"] = kPerfReportSchemaVersion;
  report["tool"] = ToolJson(context);
  report["host"] = HostJson(context);
  ordered_json info;
  info["runtime"] = "onnx";
  info["model_id"] = context.model_id;
  info["running_model_path"] = std::filesystem::absolute(options.model).lexically_normal().string();
  info["device"] = options.device.Name();
  info["resolved_device"] = result.resolved_device;
  info["ep"] = result.ep_name;
  info["ep_alias"] = result.ep_alias;
  info["ep_options"] = options.ep_options;
  info["iterations"] = result.samples_ns.size();
  info["warmup"] = result.warmup_ns.size();
  info["priming_runs"] = result.priming_runs;
  info["duration_sec"] = options.duration_s ? ordered_json(*options.duration_s) : ordered_json(nullptr);
  info["batch_size"] = options.batch_size;
  info["effective_batch_size"] = result.effective_batch;
  info["input_source"] = options.input_data ? "npz" : "synthetic";
  info["load_duration_ms"] = RoundTo(result.load_ms, 3);
  info["timestamp"] = context.timestamp_utc;
  report["benchmark_info"] = std::move(info);

  ordered_json model;
  model["input_names"] = ordered_json::array();
  model["input_shapes"] = ordered_json::array();
  model["input_types"] = ordered_json::array();
  for (const TensorSpec& input : result.inputs) {
    model["input_names"].push_back(input.name);
    model["input_shapes"].push_back(DeclaredShape(input));
    model["input_types"].push_back(ElementTypeName(input.type));
  }
  model["fed_input_shapes"] = ordered_json::array();
  for (const std::vector<int64_t>& shape : result.fed_shapes) model["fed_input_shapes"].push_back(shape);
  model["output_names"] = ordered_json::array();
  model["output_shapes"] = ordered_json::array();
  model["output_types"] = ordered_json::array();
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    model["output_names"].push_back(result.outputs[i].name);
    model["output_shapes"].push_back(i < result.output_shapes.size() ? ordered_json(result.output_shapes[i])
                                                                     : DeclaredShape(result.outputs[i]));
    model["output_types"].push_back(ElementTypeName(result.outputs[i].type));
  }
  report["model_info"] = std::move(model);

  const std::vector<double> samples_ns(result.samples_ns.begin(), result.samples_ns.end());
  const std::vector<double> warmup_ns(result.warmup_ns.begin(), result.warmup_ns.end());
  const std::optional<SampleStats> stats = ComputeStats(samples_ns);
  const std::optional<double> warmup_mean_ns = Mean(warmup_ns);
  // Upstream's block, in ms with 3 decimals (scripts read it), then the same statistics unrounded in ns.
  auto stats_block = [&](std::optional<SampleStats> in_unit, std::optional<double> warmup_mean, int decimals) {
    auto field = [&](double SampleStats::*member) {
      return RoundedOrNull(in_unit ? std::optional<double>((*in_unit).*member) : std::nullopt, decimals);
    };
    return ordered_json{{"mean", field(&SampleStats::mean)},
                        {"min", field(&SampleStats::min)},
                        {"max", field(&SampleStats::max)},
                        {"p50", field(&SampleStats::p50)},
                        {"p90", field(&SampleStats::p90)},
                        {"p95", field(&SampleStats::p95)},
                        {"p99", field(&SampleStats::p99)},
                        {"std", field(&SampleStats::std)},
                        {"warmup_mean", RoundedOrNull(warmup_mean, decimals)}};
  };
  std::optional<SampleStats> stats_ms;
  if (stats) stats_ms = ScaledStats(*stats, 1e-6);
  report["latency_ms"] = stats_block(stats_ms, warmup_mean_ns ? std::optional(*warmup_mean_ns / 1e6) : std::nullopt, 3);

  const double mean_s = stats ? stats->mean / 1e9 : 0.0;
  report["throughput"] = {
      {"samples_per_sec", mean_s > 0 ? RoundTo(static_cast<double>(result.effective_batch) / mean_s, 2) : 0.0},
      {"batches_per_sec", mean_s > 0 ? RoundTo(1.0 / mean_s, 2) : 0.0}};
  ordered_json raw = ordered_json::array();
  for (int64_t sample : result.samples_ns) raw.push_back(RoundTo(static_cast<double>(sample) / 1e6, 3));
  report["raw_samples_ms"] = std::move(raw);
  report["latency_ns"] = stats_block(stats, warmup_mean_ns, 1);
  report["raw_samples_ns"] = result.samples_ns;
  if (options.memory) {
    report["memory"] = RssMemoryJson(result.memory.baseline, result.memory.after_load, result.memory.after_inference);
  }
  if (result.placement) report["placement"] = ordered_json::array({PlacementJson(*result.placement)});
  report["reproducibility"] = ReproducibilityJson(
      context, {{"iterations", result.samples_ns.size()},
                {"warmup", result.warmup_ns.size()},
                {"duration_sec", options.duration_s ? ordered_json(*options.duration_s) : ordered_json(nullptr)},
                {"batch_size", options.batch_size},
                {"input_source", options.input_data ? "npz" : "synthetic"},
                {"device", options.device.Name()},
                {"ep", result.ep_name},
                {"ep_options", options.ep_options},
                {"intra_op_threads",
                 options.intra_op_threads > 0 ? ordered_json(options.intra_op_threads) : ordered_json("ort_default")},
                {"fail_on_fallback", options.fail_on_fallback},
                {"memory", options.memory}});
  report["warnings"] = result.warnings;
  return report;
}

std::string OnnxReportText(const ordered_json& report) {
  const ordered_json& info = report.at("benchmark_info");
  const ordered_json& model = report.at("model_info");
  std::ostringstream out;
  out << RunHeaderText(report);
  for (size_t i = 0; i < model.at("input_names").size(); ++i) {
    out << "Input:   " << model.at("input_names")[i].get<std::string>() << " "
        << model.at("input_types")[i].get<std::string>() << " " << ShapeText(model.at("fed_input_shapes")[i]) << "\n";
  }
  // In ns when the report has them (reports before they were added: from the ms block).
  const bool has_ns = report.contains("latency_ns");
  const ordered_json& latency = has_ns ? report.at("latency_ns") : report.at("latency_ms");
  const double to_ns = has_ns ? 1.0 : 1e6;
  auto ns = [&](const char* field) {
    const ordered_json& value = latency.at(field);
    return value.is_null() ? value : ordered_json(value.get<double>() * to_ns);
  };
  const std::vector<double> typical = {ns("p50").is_null() ? 0.0 : ns("p50").get<double>()};
  const DurationUnit unit = UnitForTable(typical);
  out << "\nLatency (" << unit.symbol << ")\n";
  TextTable table({"Avg", "P50", "P90", "P95", "P99", "Min", "Max", "Std"});
  table.AddRow({DurationCell(ns("mean"), unit), DurationCell(ns("p50"), unit), DurationCell(ns("p90"), unit),
                DurationCell(ns("p95"), unit), DurationCell(ns("p99"), unit), DurationCell(ns("min"), unit),
                DurationCell(ns("max"), unit), DurationCell(ns("std"), unit)});
  out << table.Render();
  out << "Iterations: " << info.at("iterations").get<int>() << " timed";
  if (info.at("warmup").get<int>() > 0) {
    out << "; warmup: " << DurationCell(ns("warmup_mean"), unit) << " " << unit.symbol << " avg (first "
        << info.at("warmup").get<int>() << " iterations, excluded)";
  }
  out << "\nThroughput: " << FixedOrDash(report.at("throughput").at("samples_per_sec"), 2) << " samples/sec (batch "
      << info.at("effective_batch_size").get<int64_t>() << ")\n";
  if (report.contains("memory")) {
    const ordered_json& memory = report.at("memory");
    out << "Memory (RSS): baseline " << FixedOrDash(memory.at("rss_baseline_mb"), 1) << " MB, after load "
        << FixedOrDash(memory.at("rss_after_compile_mb"), 1) << " MB, after inference "
        << FixedOrDash(memory.at("rss_after_inference_mb"), 1) << " MB\n";
  }
  out << HostAtStartText(report);
  return out.str();
}

ordered_json OnnxSweepJson(const OnnxPerfOptions& options, const std::vector<int64_t>& batch_sizes,
                           const std::vector<OnnxPerfResult>& results, const ReportContext& context) {
  ordered_json report = OnnxReportJson(options, results.front(), context);
  ordered_json sweep = ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    OnnxPerfOptions cell_options = options;
    cell_options.batch_size = batch_sizes[i];
    const ordered_json cell = OnnxReportJson(cell_options, results[i], context);
    sweep.push_back({{"batch_size", batch_sizes[i]},
                     {"effective_batch_size", results[i].effective_batch},
                     {"latency_ms", cell.at("latency_ms")},
                     {"latency_ns", cell.at("latency_ns")},
                     {"throughput", cell.at("throughput")},
                     {"raw_samples_ns", cell.at("raw_samples_ns")}});
  }
  report.at("benchmark_info")["sweep"] = {{"batch_sizes", batch_sizes}};
  ordered_json ordered;
  for (auto& [key, value] : report.items()) {
    if (key == "latency_ms") ordered["sweep"] = sweep;
    if (key == "latency_ms" || key == "throughput" || key == "raw_samples_ms" || key == "latency_ns" ||
        key == "raw_samples_ns") {
      continue;
    }
    ordered[key] = value;
  }
  return ordered;
}

std::string OnnxSweepText(const ordered_json& report) {
  const ordered_json& info = report.at("benchmark_info");
  std::ostringstream out;
  out << RunHeaderText(report);
  std::vector<double> p50s;
  for (const ordered_json& cell : report.at("sweep")) {
    if (cell.at("latency_ns").at("p50").is_number()) p50s.push_back(cell.at("latency_ns").at("p50").get<double>());
  }
  const DurationUnit unit = UnitForTable(p50s);
  out << "\nBatch sweep (" << info.at("iterations").dump() << " timed iterations each; latency in " << unit.symbol
      << ")\n";
  TextTable table({"Batch", "Effective", "P50", "P90", "Avg", "Samples/s"});
  for (const ordered_json& cell : report.at("sweep")) {
    const ordered_json& latency = cell.at("latency_ns");
    table.AddRow({cell.at("batch_size").dump(), cell.at("effective_batch_size").dump(),
                  DurationCell(latency.at("p50"), unit), DurationCell(latency.at("p90"), unit),
                  DurationCell(latency.at("mean"), unit),
                  cell.at("throughput").at("samples_per_sec").is_number()
                      ? SignificantText(cell.at("throughput").at("samples_per_sec").get<double>())
                      : "-"});
  }
  out << table.Render();
  out << HostAtStartText(report);
  return out.str();
}

}  // namespace modelkit::report
