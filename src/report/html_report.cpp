#include "modelkit/report/html_report.h"

#include <map>
#include <sstream>

#include "modelkit/base/error.h"
#include "modelkit/report/duration_text.h"
#include "modelkit/report/placement.h"
#include "modelkit/report/stats.h"
#include "svg_chart.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; }
dl.context { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dl.context dt { font-weight: bold; } dl.context dd { margin: 0; font-family: monospace; }
figure.chart { margin: 1.5em 0; } figcaption { font-weight: bold; margin-top: .3em; }
svg { max-width: 100%; height: auto; background: #fff; }
.axis { stroke: #444; } .tick, .axis-title, .marker-label { font-size: 11px; fill: #333; }
.bar, .part-0 { fill: #4878a8; } .bar.part-1, .part-1 { fill: #e08a3c; } rect.legend { stroke: none; }
.series { fill: none; stroke-width: 1.5; } .point { stroke: none; }
.series-0 { stroke: #4878a8; fill: #4878a8; } .series-1 { stroke: #e08a3c; fill: #e08a3c; }
.series-2 { stroke: #5aa05a; fill: #5aa05a; } .series-3 { stroke: #c04848; fill: #c04848; }
.series-4 { stroke: #8c6bb1; fill: #8c6bb1; } .series-5 { stroke: #8c564b; fill: #8c564b; }
.series-6 { stroke: #d67ab1; fill: #d67ab1; } .series-7 { stroke: #7f7f7f; fill: #7f7f7f; }
polyline.series { fill: none; }
.marker { stroke: #c04848; stroke-dasharray: 4 3; }
table { border-collapse: collapse; margin: .5em 0; } th, td { border: 1px solid #ccc; padding: .2em .5em; }
td { font-family: monospace; } .warning { color: #a04000; }
)";

const ordered_json& At(const ordered_json& object, const char* pointer) {
  static const ordered_json kNull;
  const ordered_json::json_pointer at(pointer);
  return object.contains(at) ? object.at(at) : kNull;
}

std::string Text(const ordered_json& value) {
  if (value.is_null()) return "-";
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string RuntimeOf(const NamedReport& named) {
  const ordered_json& runtime = At(named.report, "/benchmark_info/runtime");
  if (runtime != "onnx" && runtime != "genai") {
    throw UsageError(named.name +
                     ": $.benchmark_info.runtime is neither \"onnx\" nor \"genai\"; give reports "
                     "written by 'modelkit perf -f json'");
  }
  return runtime.get<std::string>();
}

// An ONNX run's latency samples in ns (the ms ones for reports without them).
std::vector<double> OnnxSamplesNs(const ordered_json& report) {
  std::vector<double> samples;
  if (report.contains("raw_samples_ns")) {
    for (const ordered_json& v : report.at("raw_samples_ns")) samples.push_back(v.get<double>());
  } else {
    for (const ordered_json& v : At(report, "/raw_samples_ms")) samples.push_back(v.get<double>() * 1e6);
  }
  return samples;
}

std::vector<const ordered_json*> TimedRequests(const ordered_json& report) {
  std::vector<const ordered_json*> timed;
  for (const ordered_json& request : At(report, "/requests")) {
    if (request.value("kind", "") == "timed") timed.push_back(&request);
  }
  return timed;
}

std::vector<double> Scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (double value : values) out.push_back(value * factor);
  return out;
}

std::string ContextHtml(const NamedReport& named, const std::string& runtime) {
  const ordered_json& report = named.report;
  std::ostringstream out;
  out << "<dl class=\"context\">\n";
  auto item = [&](const std::string& term, const std::string& value) {
    out << "<dt>" << HtmlEscape(term) << "</dt><dd>" << HtmlEscape(value) << "</dd>\n";
  };
  if (runtime == "onnx") {
    item("Model", Text(At(report, "/benchmark_info/running_model_path")));
    item("Device / EP", Text(At(report, "/benchmark_info/device")) + " (" +
                            Text(At(report, "/benchmark_info/resolved_device")) + ") / " +
                            Text(At(report, "/benchmark_info/ep")));
    item("Batch", report.contains("sweep") ? "sweep over " + Text(At(report, "/benchmark_info/sweep/batch_sizes"))
                                           : Text(At(report, "/benchmark_info/effective_batch_size")));
    item("Iterations", Text(At(report, "/benchmark_info/iterations")) + " timed, " +
                           Text(At(report, "/benchmark_info/warmup")) + " warm-up");
  } else {
    item("Bundle", Text(At(report, "/benchmark_info/bundle_dir")));
    item("Device / EP", Text(At(report, "/benchmark_info/device")) + " -> " +
                            Text(At(report, "/benchmark_info/effective_device")) + " (" +
                            Text(At(report, "/benchmark_info/ep")) + ")");
    if (report.contains("sweep")) {
      item("Sweep", "prompt " + Text(At(report, "/benchmark_info/sweep/prompt_tokens")) + " x gen " +
                        Text(At(report, "/benchmark_info/sweep/gen_tokens")) + " tokens, synthetic prompts");
    } else {
      item("Prompt / generated", Text(At(report, "/benchmark_info/prompt_tokens")) + " / " +
                                     Text(At(report, "/benchmark_info/generated_tokens")) + " tokens");
      item("Requests", Text(At(report, "/aggregate/timed_request_count")) + " timed, " +
                           Text(At(report, "/aggregate/warmup_request_count")) + " warm-up");
    }
  }
  for (const ordered_json& session : At(report, "/placement")) item("Placement", PlacementLine(session));
  item("Host", Text(At(report, "/host/cpu_model")) + ", " + Text(At(report, "/host/logical_cores")) +
                   " logical cores, ONNX Runtime " + Text(At(report, "/host/ort_version")));
  std::string command;
  for (const ordered_json& arg : At(report, "/reproducibility/command_line")) {
    command += (command.empty() ? "" : " ") + Text(arg);
  }
  if (!command.empty()) item("Command", command);
  item("Time", Text(At(report, "/benchmark_info/timestamp")));
  out << "</dl>\n";
  const ordered_json& warnings = At(report, "/warnings");
  if (warnings.is_array() && !warnings.empty()) {
    out << "<ul class=\"warnings\">\n";
    for (const ordered_json& warning : warnings)
      out << "<li class=\"warning\">" << HtmlEscape(Text(warning)) << "</li>\n";
    out << "</ul>\n";
  }
  return out.str();
}

// Most points a CDF is drawn (and tabulated) through: past that a page grows without showing more.
constexpr size_t kMaxCdfPoints = 500;

// The empirical CDF of `samples_ns` in `unit`: a point per sample, or kMaxCdfPoints evenly spaced ones (the
// smallest and the largest sample always among them).
ChartSeries Cdf(const std::string& name, std::vector<double> samples_ns, DurationUnit unit) {
  std::sort(samples_ns.begin(), samples_ns.end());
  ChartSeries series{name, {}};
  const size_t n = samples_ns.size();
  const size_t points = std::min(n, kMaxCdfPoints);
  for (size_t k = 0; k < points; ++k) {
    const size_t i = points == n ? k : (k * (n - 1) + (points - 1) / 2) / (points - 1);
    series.points.push_back({samples_ns[i] / unit.ns, static_cast<double>(i + 1) / static_cast<double>(n)});
  }
  return series;
}

// Throughput and latency against batch size.
std::string OnnxSweepCharts(const NamedReport& named) {
  std::vector<double> p50s;
  for (const ordered_json& cell : At(named.report, "/sweep")) {
    if (At(cell, "/latency_ns/p50").is_number()) p50s.push_back(At(cell, "/latency_ns/p50").get<double>());
  }
  const DurationUnit unit = UnitForTable(p50s);
  ChartSeries throughput{"samples/s", {}};
  ChartSeries p50{"p50", {}};
  ChartSeries p90{"p90", {}};
  for (const ordered_json& cell : At(named.report, "/sweep")) {
    const ordered_json& batch = At(cell, "/effective_batch_size");
    if (!batch.is_number()) continue;
    const double x = batch.get<double>();
    if (At(cell, "/throughput/samples_per_sec").is_number()) {
      throughput.points.push_back({x, At(cell, "/throughput/samples_per_sec").get<double>()});
    }
    if (At(cell, "/latency_ns/p50").is_number())
      p50.points.push_back({x, At(cell, "/latency_ns/p50").get<double>() / unit.ns});
    if (At(cell, "/latency_ns/p90").is_number())
      p90.points.push_back({x, At(cell, "/latency_ns/p90").get<double>() / unit.ns});
  }
  return SvgLineChart("Throughput by batch size", {throughput}, Axis{"batch size"}, Axis{"throughput (samples/s)"}) +
         SvgLineChart("Latency by batch size", {p50, p90}, Axis{"batch size"},
                      Axis{"latency (" + std::string(unit.symbol) + ")"});
}

std::string OnnxCharts(const NamedReport& named) {
  if (named.report.contains("sweep")) return OnnxSweepCharts(named);
  const std::vector<double> samples = OnnxSamplesNs(named.report);
  if (samples.empty()) return "<p>No timed iterations.</p>\n";
  const DurationUnit unit = UnitForTable(samples);
  const std::string unit_text(unit.symbol);
  std::string html = SvgHistogram("Latency distribution", Histogram(Scaled(samples, 1 / unit.ns)),
                                  Axis{"latency (" + unit_text + ")"}, Axis{"iterations"});
  std::vector<Marker> markers;
  for (const auto& [label, p] : std::vector<std::pair<std::string, double>>{{"p50", 50}, {"p90", 90}, {"p99", 99}}) {
    markers.push_back({*Percentile(samples, p) / unit.ns, label});
  }
  html += SvgLineChart("Latency CDF", {Cdf(named.name, samples, unit)}, Axis{"latency (" + unit_text + ")"},
                       Axis{"fraction of iterations"}, markers);
  return html;
}

// Rates against prompt length, a line per generation length (llama-bench's pp and tg).
std::string SweepCharts(const NamedReport& named) {
  std::map<int64_t, ChartSeries> pp;
  std::map<int64_t, ChartSeries> tg;
  for (const ordered_json& cell : At(named.report, "/sweep")) {
    const int64_t gen = cell.value("gen_tokens", int64_t{0});
    const double prompt = cell.value("prompt_tokens", 0.0);
    pp[gen].name = tg[gen].name = "gen " + std::to_string(gen);
    if (cell.at("pp_tokens_per_second").is_number()) {
      pp[gen].points.push_back({prompt, cell.at("pp_tokens_per_second").get<double>()});
    }
    if (cell.at("tg_tokens_per_second").is_number()) {
      tg[gen].points.push_back({prompt, cell.at("tg_tokens_per_second").get<double>()});
    }
  }
  auto values = [](const std::map<int64_t, ChartSeries>& by_gen) {
    std::vector<ChartSeries> series;
    for (const auto& [gen, s] : by_gen) series.push_back(s);
    return series;
  };
  return SvgLineChart("Prompt processing rate by prompt length", values(pp), Axis{"prompt (tokens)"},
                      Axis{"pp (tokens/s)"}) +
         SvgLineChart("Token generation rate by prompt length", values(tg), Axis{"prompt (tokens)"},
                      Axis{"tg (tokens/s)"});
}

std::string GenaiCharts(const NamedReport& named) {
  if (named.report.contains("sweep")) return SweepCharts(named);
  const std::vector<const ordered_json*> timed = TimedRequests(named.report);
  if (timed.empty()) return "<p>No timed requests.</p>\n";
  std::vector<double> ttft_ns;
  std::vector<double> decode_rates;
  for (const ordered_json* request : timed) {
    ttft_ns.push_back(request->value("model_ttft_duration_ms", 0.0) * 1e6);
    decode_rates.push_back(request->value("steady_state_decode_tokens_per_second", 0.0));
  }
  const DurationUnit ttft_unit = UnitForTable(ttft_ns);
  std::string html = SvgHistogram("Time to first token", Histogram(Scaled(ttft_ns, 1 / ttft_unit.ns)),
                                  Axis{"TTFT (" + std::string(ttft_unit.symbol) + ")"}, Axis{"requests"});
  html += SvgHistogram("Decode rate", Histogram(decode_rates), Axis{"decode rate (tokens/s)"}, Axis{"requests"});

  std::vector<double> steps_ns;
  for (const ordered_json* request : timed) {
    for (const ordered_json& ms : request->value("decode_token_durations_ms", ordered_json::array())) {
      steps_ns.push_back(ms.get<double>() * 1e6);
    }
  }
  const DurationUnit step_unit = UnitForTable(steps_ns);
  std::vector<ChartSeries> timelines;
  for (const ordered_json* request : timed) {
    ChartSeries series{"request " + Text(request->value("index", ordered_json(nullptr))), {}};
    const ordered_json steps = request->value("decode_token_durations_ms", ordered_json::array());
    for (size_t i = 0; i < steps.size(); ++i) {
      series.points.push_back({static_cast<double>(i + 2), steps[i].get<double>() * 1e6 / step_unit.ns});
    }
    timelines.push_back(std::move(series));
  }
  html += SvgLineChart("Decode step time per token", timelines, Axis{"token"},
                       Axis{"step (" + std::string(step_unit.symbol) + ")"}, {}, /*dots=*/false);

  std::vector<StackedBar> bars;
  std::vector<double> stage_ns;
  for (const ordered_json& stage : At(named.report, "/aggregate/stages")) {
    const double prompt = At(stage, "/prompt_duration_ms/mean").is_number()
                              ? At(stage, "/prompt_duration_ms/mean").get<double>() * 1e6
                              : 0.0;
    const double token = At(stage, "/token_duration_ms/mean").is_number()
                             ? At(stage, "/token_duration_ms/mean").get<double>() * 1e6
                             : 0.0;
    bars.push_back({Text(At(stage, "/name")), {prompt, token}});
    stage_ns.push_back(prompt + token);
  }
  if (!bars.empty()) {
    const DurationUnit stage_unit = UnitForTable(stage_ns);
    for (StackedBar& bar : bars) {
      for (double& part : bar.parts) part /= stage_unit.ns;
    }
    html += SvgStackedBars("Time per stage and generation (prompt | token)", {"prompt", "token"}, bars,
                           Axis{"time (" + std::string(stage_unit.symbol) + ")"});
  }
  return html;
}

// The runs together: one CDF (ONNX) with a line per run, and the compare table against the first.
std::string ComparisonHtml(const std::vector<NamedReport>& reports, const std::string& runtime) {
  std::ostringstream out;
  out << "<section id=\"comparison\">\n<h2>Comparison</h2>\n";
  const CompareResult compared = CompareReports(reports);
  for (const std::string& warning : compared.warnings)
    out << "<p class=\"warning\">" << HtmlEscape(warning) << "</p>\n";
  for (const Comparison& comparison : compared.comparisons) {
    out << "<table class=\"comparison\"><caption>" << HtmlEscape(comparison.candidate) << " against "
        << HtmlEscape(comparison.baseline) << "</caption>\n<thead><tr>";
    for (const std::string& cell : CompareHeader()) out << "<th>" << HtmlEscape(cell) << "</th>";
    out << "</tr></thead><tbody>\n";
    for (const std::vector<std::string>& row : CompareRows(comparison)) {
      out << "<tr>";
      for (const std::string& cell : row) out << "<td>" << HtmlEscape(cell) << "</td>";
      out << "</tr>\n";
    }
    out << "</tbody></table>\n";
  }
  if (runtime == "onnx") {
    std::vector<double> all;
    for (const NamedReport& named : reports) {
      const std::vector<double> samples = OnnxSamplesNs(named.report);
      all.insert(all.end(), samples.begin(), samples.end());
    }
    const DurationUnit unit = UnitForTable(all);
    std::vector<ChartSeries> cdfs;
    for (const NamedReport& named : reports) cdfs.push_back(Cdf(named.name, OnnxSamplesNs(named.report), unit));
    out << SvgLineChart("Latency CDF of every run", cdfs, Axis{"latency (" + std::string(unit.symbol) + ")"},
                        Axis{"fraction of iterations"});
  }
  out << "</section>\n";
  return out.str();
}

}  // namespace

std::string HtmlReport(const std::vector<NamedReport>& reports) {
  std::vector<std::string> runtimes;
  for (const NamedReport& named : reports) runtimes.push_back(RuntimeOf(named));
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>modelkit perf report</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
      << "<h1>modelkit perf report</h1>\n";
  const bool same_runtime = std::all_of(runtimes.begin(), runtimes.end(),
                                        [&](const std::string& runtime) { return runtime == runtimes.front(); });
  const bool any_sweep = std::any_of(reports.begin(), reports.end(),
                                     [](const NamedReport& named) { return named.report.contains("sweep"); });
  if (reports.size() > 1 && same_runtime && !any_sweep) out << ComparisonHtml(reports, runtimes.front());
  for (size_t i = 0; i < reports.size(); ++i) {
    out << "<section class=\"run\" id=\"run-" << i + 1 << "\">\n<h2>" << HtmlEscape(reports[i].name) << "</h2>\n"
        << ContextHtml(reports[i], runtimes[i])
        << (runtimes[i] == "onnx" ? OnnxCharts(reports[i]) : GenaiCharts(reports[i])) << "</section>\n";
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace modelkit::report
