// Perf reports side by side: the key figures of a baseline report and of each candidate, their absolute and relative
// differences, and whether each difference is more than noise (Mann-Whitney U over the samples behind the figure,
// as google/benchmark's compare.py judges). Works from saved report JSON, so runs from any time or machine compare.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/report/significance.h"

namespace modelkit::report {

// A difference with a p-value below this is called better or worse; above it, noise.
inline constexpr double kSignificanceLevel = 0.05;

enum class Better { kLower, kHigher };

struct ComparedMetric {
  std::string name;  // "latency p50", "decode tokens/s", "stage ctx prompt"
  std::string unit;  // "ns" for durations (text picks a unit per table), else e.g. "tokens/s"
  Better better = Better::kLower;
  double baseline = 0;
  double candidate = 0;
  size_t baseline_samples = 0;
  size_t candidate_samples = 0;
  bool tested = true;   // false: a tail percentile, which the test does not judge (no p-value, verdict "-")
  UTestResult test;     // over the samples behind the figure
  std::string verdict;  // "better", "worse", "noise", "too few samples" or "-"
};

struct Comparison {
  std::string baseline;  // the reports' names as given (file paths)
  std::string candidate;
  std::vector<ComparedMetric> metrics;
};

struct CompareResult {
  std::string runtime;                  // "onnx" or "genai"
  std::vector<Comparison> comparisons;  // one per candidate, each against the baseline
  std::vector<std::string> warnings;    // settings that differ between the baseline and a candidate
};

struct NamedReport {
  std::string name;
  nlohmann::ordered_json report;
};

// The first report is the baseline. Throws UsageError for fewer than two reports, reports of different runtimes, or
// one that lacks what is compared (naming the report and the field).
CompareResult CompareReports(const std::vector<NamedReport>& reports);

// The header and the rows of one comparison's table as text, markdown and HTML show them: durations in one unit
// per table, three significant digits, signed deltas.
std::vector<std::string> CompareHeader();
std::vector<std::vector<std::string>> CompareRows(const Comparison& comparison);

nlohmann::ordered_json CompareJson(const CompareResult& result);
std::string CompareText(const CompareResult& result);      // aligned tables, one per candidate
std::string CompareMarkdown(const CompareResult& result);  // the same tables as GitHub markdown
std::string CompareCsv(const CompareResult& result);       // one row per candidate and metric, raw numbers

}  // namespace modelkit::report
