#include "modelkit/report/compare.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "modelkit/base/error.h"
#include "modelkit/base/text_table.h"
#include "modelkit/report/duration_text.h"
#include "modelkit/report/stats.h"
#include "modelkit/report/table_formats.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;

// The samples behind one figure of one report, and how the figure is made from them.
struct Series {
  std::string name;
  std::string unit;
  Better better = Better::kLower;
  std::vector<double> samples;
  double value = 0;
  // Whether the significance test speaks for this figure. The test compares whole distributions (roughly, their
  // medians), so it judges a median or a mean of per-request values, not a tail percentile drawn from the same
  // samples: p99 can rise while the distribution as a whole moves down.
  bool tested = true;
};

[[noreturn]] void Malformed(const std::string& report, const std::string& what) {
  throw UsageError(report + ": " + what + "; give reports written by 'modelkit perf -f json'");
}

const ordered_json& Field(const ordered_json& object, const char* key, const std::string& report,
                          const std::string& path) {
  if (!object.is_object() || !object.contains(key)) Malformed(report, path + "." + key + " is missing");
  return object.at(key);
}

double Number(const ordered_json& value, const std::string& report, const std::string& path) {
  if (!value.is_number()) Malformed(report, path + " is not a number");
  return value.get<double>();
}

std::string RuntimeOf(const NamedReport& named) {
  const ordered_json& info = Field(named.report, "benchmark_info", named.name, "$");
  const ordered_json& runtime = Field(info, "runtime", named.name, "$.benchmark_info");
  if (!runtime.is_string() || (runtime != "onnx" && runtime != "genai")) {
    Malformed(named.name, "$.benchmark_info.runtime is neither \"onnx\" nor \"genai\"");
  }
  if (named.report.contains("sweep")) {
    throw UsageError(named.name +
                     " is a sweep (--prompt-tokens/--gen-tokens); compare reports of single runs, or "
                     "put sweeps side by side with 'modelkit report'");
  }
  return runtime.get<std::string>();
}

// ONNX: latency statistics over the raw samples (ns, else the ms ones) and the throughput they give.
std::vector<Series> OnnxSeries(const NamedReport& named) {
  const ordered_json& report = named.report;
  std::vector<double> samples;
  if (report.contains("raw_samples_ns")) {
    for (const ordered_json& v : report.at("raw_samples_ns"))
      samples.push_back(Number(v, named.name, "$.raw_samples_ns[]"));
  } else {
    for (const ordered_json& v : Field(report, "raw_samples_ms", named.name, "$")) {
      samples.push_back(Number(v, named.name, "$.raw_samples_ms[]") * 1e6);
    }
  }
  const std::optional<SampleStats> stats = ComputeStats(samples);
  const double batch =
      Number(Field(report.at("benchmark_info"), "effective_batch_size", named.name, "$.benchmark_info"), named.name,
             "$.benchmark_info.effective_batch_size");
  std::vector<double> throughput;
  for (double ns : samples) throughput.push_back(ns > 0 ? batch * 1e9 / ns : 0.0);
  return {{"latency p50", "ns", Better::kLower, samples, stats ? stats->p50 : 0, true},
          {"latency mean", "ns", Better::kLower, samples, stats ? stats->mean : 0, false},
          {"latency p90", "ns", Better::kLower, samples, stats ? stats->p90 : 0, false},
          {"latency p99", "ns", Better::kLower, samples, stats ? stats->p99 : 0, false},
          {"throughput", "samples/s", Better::kHigher, throughput,
           stats && stats->mean > 0 ? batch * 1e9 / stats->mean : 0, true}};
}

// Genai: per timed request TTFT, prefill and decode rates, TPOT, the request, and each stage's prompt and token time;
// the figure is the mean over the requests.
std::vector<Series> GenaiSeries(const NamedReport& named) {
  std::vector<Series> series = {{"TTFT", "ns", Better::kLower, {}, 0},
                                {"prefill tokens/s", "tokens/s", Better::kHigher, {}, 0},
                                {"decode tokens/s", "tokens/s", Better::kHigher, {}, 0},
                                {"TPOT", "ns", Better::kLower, {}, 0},
                                {"request", "ns", Better::kLower, {}, 0}};
  const std::vector<std::pair<const char*, double>> fields = {{"model_ttft_duration_ms", 1e6},
                                                              {"prefill_tokens_per_second", 1},
                                                              {"steady_state_decode_tokens_per_second", 1},
                                                              {"steady_state_tpot_ms", 1e6},
                                                              {"request_duration_ms", 1e6}};
  std::vector<std::string> stage_order;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> stages;  // prompt, token ns
  for (const ordered_json& request : Field(named.report, "requests", named.name, "$")) {
    if (Field(request, "kind", named.name, "$.requests[]") != "timed") continue;
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string path = std::string("$.requests[].") + fields[i].first;
      series[i].samples.push_back(
          Number(Field(request, fields[i].first, named.name, "$.requests[]"), named.name, path) * fields[i].second);
    }
    std::map<std::string, std::pair<double, double>> in_request;
    for (const ordered_json& stage : Field(request, "stages", named.name, "$.requests[]")) {
      const std::string stage_name = Field(stage, "name", named.name, "$.requests[].stages[]").get<std::string>();
      if (std::find(stage_order.begin(), stage_order.end(), stage_name) == stage_order.end()) {
        stage_order.push_back(stage_name);
      }
      in_request[stage_name].first += Number(Field(stage, "prompt_duration_ms", named.name, "$.requests[].stages[]"),
                                             named.name, "$.requests[].stages[].prompt_duration_ms") *
                                      1e6;
      in_request[stage_name].second += Number(Field(stage, "token_duration_ms", named.name, "$.requests[].stages[]"),
                                              named.name, "$.requests[].stages[].token_duration_ms") *
                                       1e6;
    }
    for (const auto& [stage_name, times] : in_request) {
      stages[stage_name].first.push_back(times.first);
      stages[stage_name].second.push_back(times.second);
    }
  }
  for (const std::string& stage_name : stage_order) {
    series.push_back({"stage " + stage_name + " prompt", "ns", Better::kLower, stages[stage_name].first, 0});
    series.push_back({"stage " + stage_name + " token", "ns", Better::kLower, stages[stage_name].second, 0});
  }
  for (Series& s : series) s.value = Mean(s.samples).value_or(0);
  return series;
}

std::vector<Series> SeriesOf(const NamedReport& named, const std::string& runtime) {
  return runtime == "onnx" ? OnnxSeries(named) : GenaiSeries(named);
}

// The settings that make two runs comparable, as (label, JSON pointer).
std::vector<std::pair<std::string, std::string>> SettingsOf(const std::string& runtime) {
  std::vector<std::pair<std::string, std::string>> settings =
      runtime == "onnx"
          ? std::vector<std::pair<std::string, std::string>>{{"model", "/benchmark_info/running_model_path"},
                                                             {"EP", "/benchmark_info/ep"},
                                                             {"device", "/benchmark_info/resolved_device"},
                                                             {"batch", "/benchmark_info/effective_batch_size"},
                                                             {"input shapes", "/model_info/fed_input_shapes"},
                                                             {"inputs", "/benchmark_info/input_source"}}
          : std::vector<std::pair<std::string, std::string>>{{"bundle", "/benchmark_info/bundle_dir"},
                                                             {"EP", "/benchmark_info/ep"},
                                                             {"device", "/benchmark_info/effective_device"},
                                                             {"prompt tokens", "/benchmark_info/prompt_tokens"},
                                                             {"generated tokens", "/benchmark_info/generated_tokens"}};
  settings.push_back({"CPU", "/host/cpu_model"});
  settings.push_back({"ONNX Runtime", "/host/ort_version"});
  return settings;
}

std::string SettingText(const ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<std::string> SettingDifferences(const NamedReport& baseline, const NamedReport& candidate,
                                            const std::string& runtime) {
  std::vector<std::string> differences;
  for (const auto& [label, pointer] : SettingsOf(runtime)) {
    const ordered_json::json_pointer at(pointer);
    const ordered_json a = baseline.report.contains(at) ? baseline.report.at(at) : ordered_json(nullptr);
    const ordered_json b = candidate.report.contains(at) ? candidate.report.at(at) : ordered_json(nullptr);
    if (a != b) differences.push_back(label + " " + SettingText(a) + " vs " + SettingText(b));
  }
  return differences;
}

std::string Verdict(const ComparedMetric& metric) {
  if (!metric.tested) return "-";
  if (!metric.test.p_value) return "too few samples";
  if (*metric.test.p_value >= kSignificanceLevel || metric.candidate == metric.baseline) return "noise";
  const bool lower = metric.candidate < metric.baseline;
  return lower == (metric.better == Better::kLower) ? "better" : "worse";
}

std::optional<double> DeltaPercent(const ComparedMetric& metric) {
  if (metric.baseline == 0) return std::nullopt;
  return (metric.candidate - metric.baseline) / metric.baseline * 100.0;
}

std::string PValueText(const UTestResult& test) {
  if (!test.p_value) return "-";
  if (test.at_lower_bound) return "<=0.0002";
  if (test.at_upper_bound) return ">=" + SignificantText(*test.p_value, 1);
  std::ostringstream out;
  out << std::fixed << std::setprecision(4) << *test.p_value;
  return out.str();
}

// The cells of one table row: metric, baseline, candidate, delta, delta %, p-value, verdict.
std::vector<std::string> Cells(const ComparedMetric& metric, DurationUnit unit) {
  auto value = [&](double v) {
    if (metric.unit == "ns") return SignificantText(v / unit.ns) + " " + std::string(unit.symbol);
    return SignificantText(v) + " " + metric.unit;
  };
  const double delta = metric.candidate - metric.baseline;
  const std::optional<double> percent = DeltaPercent(metric);
  std::ostringstream percent_text;
  if (percent) percent_text << std::showpos << std::fixed << std::setprecision(1) << *percent << "%";
  return {metric.name,
          value(metric.baseline),
          value(metric.candidate),
          (delta > 0 ? "+" : "") + value(delta),
          percent ? percent_text.str() : "-",
          PValueText(metric.test),
          metric.verdict};
}

DurationUnit TableUnit(const Comparison& comparison) {
  std::vector<double> durations;
  for (const ComparedMetric& metric : comparison.metrics) {
    if (metric.unit == "ns") durations.push_back(metric.baseline);
  }
  return UnitForTable(durations);
}

}  // namespace

CompareResult CompareReports(const std::vector<NamedReport>& reports) {
  if (reports.size() < 2) throw UsageError("compare needs at least two reports: a baseline and a candidate");
  CompareResult result;
  result.runtime = RuntimeOf(reports.front());
  for (const NamedReport& named : reports) {
    const std::string runtime = RuntimeOf(named);
    if (runtime != result.runtime) {
      auto kind = [](const std::string& r) { return r == "onnx" ? "an ONNX model" : "a genai bundle"; };
      throw UsageError(named.name + " is the report of " + kind(runtime) + " and " + reports.front().name + " of " +
                       kind(result.runtime) + "; compare reports of the same kind");
    }
  }
  const std::vector<Series> baseline = SeriesOf(reports.front(), result.runtime);
  for (size_t r = 1; r < reports.size(); ++r) {
    const std::vector<std::string> differences = SettingDifferences(reports.front(), reports[r], result.runtime);
    if (!differences.empty()) {
      std::string joined;
      for (const std::string& difference : differences) joined += (joined.empty() ? "" : "; ") + difference;
      result.warnings.push_back(reports[r].name + " was not run like " + reports.front().name + ": " + joined);
    }
    Comparison comparison{reports.front().name, reports[r].name, {}};
    const std::vector<Series> candidate = SeriesOf(reports[r], result.runtime);
    for (const Series& base : baseline) {
      const auto match =
          std::find_if(candidate.begin(), candidate.end(), [&](const Series& c) { return c.name == base.name; });
      if (match == candidate.end()) continue;  // e.g. a stage only one bundle has
      ComparedMetric metric;
      metric.name = base.name;
      metric.unit = base.unit;
      metric.better = base.better;
      metric.baseline = base.value;
      metric.candidate = match->value;
      metric.baseline_samples = base.samples.size();
      metric.candidate_samples = match->samples.size();
      metric.tested = base.tested;
      if (metric.tested) metric.test = MannWhitneyU(base.samples, match->samples);
      metric.verdict = Verdict(metric);
      comparison.metrics.push_back(std::move(metric));
    }
    result.comparisons.push_back(std::move(comparison));
  }
  return result;
}

std::vector<std::string> CompareHeader() {
  return {"Metric", "Baseline", "Candidate", "Delta", "Delta %", "p-value", "Verdict"};
}

std::vector<std::vector<std::string>> CompareRows(const Comparison& comparison) {
  const DurationUnit unit = TableUnit(comparison);
  std::vector<std::vector<std::string>> rows;
  for (const ComparedMetric& metric : comparison.metrics) rows.push_back(Cells(metric, unit));
  return rows;
}

ordered_json CompareJson(const CompareResult& result) {
  ordered_json comparisons = ordered_json::array();
  for (const Comparison& comparison : result.comparisons) {
    ordered_json metrics = ordered_json::array();
    for (const ComparedMetric& metric : comparison.metrics) {
      const std::optional<double> percent = DeltaPercent(metric);
      metrics.push_back(
          {{"metric", metric.name},
           {"unit", metric.unit},
           {"better", metric.better == Better::kLower ? "lower" : "higher"},
           {"baseline", metric.baseline},
           {"candidate", metric.candidate},
           {"delta", metric.candidate - metric.baseline},
           {"delta_percent", percent ? ordered_json(*percent) : ordered_json(nullptr)},
           {"p_value", metric.test.p_value ? ordered_json(*metric.test.p_value) : ordered_json(nullptr)},
           // ALGLIB clamps p to [0.0002, 0.5]: at a bound the true p is at most (at least) the value given.
           {"p_value_is", !metric.test.p_value         ? ordered_json(nullptr)
                          : metric.test.at_lower_bound ? ordered_json("at_most")
                          : metric.test.at_upper_bound ? ordered_json("at_least")
                                                       : ordered_json("estimate")},
           {"samples", {metric.baseline_samples, metric.candidate_samples}},
           {"verdict", metric.verdict}});
    }
    comparisons.push_back(
        {{"baseline", comparison.baseline}, {"candidate", comparison.candidate}, {"metrics", std::move(metrics)}});
  }
  return {{"runtime", result.runtime},
          {"significance_level", kSignificanceLevel},
          {"test", "Mann-Whitney U, two-sided"},
          {"comparisons", std::move(comparisons)},
          {"warnings", result.warnings}};
}

std::string CompareText(const CompareResult& result) {
  std::ostringstream out;
  for (size_t i = 0; i < result.comparisons.size(); ++i) {
    const Comparison& comparison = result.comparisons[i];
    if (i > 0) out << "\n";
    out << "Baseline:  " << comparison.baseline << "\nCandidate: " << comparison.candidate << "\n\n";
    TextTable table(CompareHeader());
    for (std::vector<std::string>& row : CompareRows(comparison)) table.AddRow(std::move(row));
    out << table.Render();
  }
  out << "\nVerdict: a two-sided Mann-Whitney U test over the samples behind each figure (it judges medians and "
         "per-request means, not tail percentiles); p < "
      << kSignificanceLevel << " is better or worse, else noise.\n";
  return out.str();
}

std::string CompareMarkdown(const CompareResult& result) {
  std::ostringstream out;
  auto row = [&](const std::vector<std::string>& cells) {
    out << "|";
    for (const std::string& cell : cells) out << " " << cell << " |";
    out << "\n";
  };
  for (size_t i = 0; i < result.comparisons.size(); ++i) {
    const Comparison& comparison = result.comparisons[i];
    if (i > 0) out << "\n";
    out << "**" << comparison.candidate << "** against **" << comparison.baseline << "**\n\n";
    row(CompareHeader());
    out << "|---|---:|---:|---:|---:|---:|---|\n";
    for (const std::vector<std::string>& cells : CompareRows(comparison)) row(cells);
  }
  return out.str();
}

std::string CompareCsv(const CompareResult& result) {
  Table table;
  table.columns = {"baseline",        "candidate", "metric",        "unit",    "better", "baseline_value",
                   "candidate_value", "delta",     "delta_percent", "p_value", "verdict"};
  auto number = [](std::optional<double> value) { return value ? ordered_json(*value) : ordered_json(nullptr); };
  for (const Comparison& comparison : result.comparisons) {
    for (const ComparedMetric& metric : comparison.metrics) {
      table.rows.push_back({comparison.baseline, comparison.candidate, metric.name, metric.unit,
                            metric.better == Better::kLower ? "lower" : "higher", metric.baseline, metric.candidate,
                            metric.candidate - metric.baseline, number(DeltaPercent(metric)),
                            number(metric.test.p_value), metric.verdict});
    }
  }
  return TableCsv(table);
}

}  // namespace modelkit::report
