#include "modelkit/report/onnx_report.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "modelkit/base/files.h"
#include "modelkit/base/text_table.h"
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
  info["iterations"] = result.samples_ms.size();
  info["warmup"] = result.warmup_ms.size();
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

  const std::optional<SampleStats> stats = ComputeStats(result.samples_ms);
  ordered_json latency;
  latency["mean"] = RoundedOrNull(stats ? std::optional(stats->mean) : std::nullopt, 3);
  latency["min"] = RoundedOrNull(stats ? std::optional(stats->min) : std::nullopt, 3);
  latency["max"] = RoundedOrNull(stats ? std::optional(stats->max) : std::nullopt, 3);
  latency["p50"] = RoundedOrNull(stats ? std::optional(stats->p50) : std::nullopt, 3);
  latency["p90"] = RoundedOrNull(stats ? std::optional(stats->p90) : std::nullopt, 3);
  latency["p95"] = RoundedOrNull(stats ? std::optional(stats->p95) : std::nullopt, 3);
  latency["p99"] = RoundedOrNull(stats ? std::optional(stats->p99) : std::nullopt, 3);
  latency["std"] = RoundedOrNull(stats ? std::optional(stats->std) : std::nullopt, 3);
  latency["warmup_mean"] = RoundedOrNull(Mean(result.warmup_ms), 3);
  report["latency_ms"] = std::move(latency);

  const double mean_s = stats ? stats->mean / 1000.0 : 0.0;
  report["throughput"] = {
      {"samples_per_sec", mean_s > 0 ? RoundTo(static_cast<double>(result.effective_batch) / mean_s, 2) : 0.0},
      {"batches_per_sec", mean_s > 0 ? RoundTo(1.0 / mean_s, 2) : 0.0}};
  ordered_json raw = ordered_json::array();
  for (double sample : result.samples_ms) raw.push_back(RoundTo(sample, 3));
  report["raw_samples_ms"] = std::move(raw);
  if (options.memory) {
    report["memory"] = RssMemoryJson(result.memory.baseline, result.memory.after_load, result.memory.after_inference);
  }
  if (result.placement) report["placement"] = ordered_json::array({PlacementJson(*result.placement)});
  report["reproducibility"] = ReproducibilityJson(
      context, {{"iterations", result.samples_ms.size()},
                {"warmup", result.warmup_ms.size()},
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
  out << "Model:   " << info.at("running_model_path").get<std::string>() << "\n";
  out << "Device:  " << info.at("device").get<std::string>() << " (" << info.at("resolved_device").get<std::string>()
      << ") / " << info.at("ep").get<std::string>() << "\n";
  if (report.contains("placement")) {
    for (const ordered_json& session : report.at("placement")) out << "Placement: " << PlacementLine(session) << "\n";
  }
  for (size_t i = 0; i < model.at("input_names").size(); ++i) {
    out << "Input:   " << model.at("input_names")[i].get<std::string>() << " "
        << model.at("input_types")[i].get<std::string>() << " " << ShapeText(model.at("fed_input_shapes")[i]) << "\n";
  }
  const ordered_json& latency = report.at("latency_ms");
  out << "\nLatency (ms)\n";
  TextTable table({"Avg", "P50", "P90", "P95", "P99", "Min", "Max", "Std"});
  table.AddRow({FixedOrDash(latency.at("mean"), 3), FixedOrDash(latency.at("p50"), 3),
                FixedOrDash(latency.at("p90"), 3), FixedOrDash(latency.at("p95"), 3), FixedOrDash(latency.at("p99"), 3),
                FixedOrDash(latency.at("min"), 3), FixedOrDash(latency.at("max"), 3),
                FixedOrDash(latency.at("std"), 3)});
  out << table.Render();
  out << "Iterations: " << info.at("iterations").get<int>() << " timed";
  if (info.at("warmup").get<int>() > 0) {
    out << "; warmup: " << FixedOrDash(latency.at("warmup_mean"), 3) << " ms avg (first "
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

}  // namespace modelkit::report
