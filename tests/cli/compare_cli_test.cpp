// `modelkit compare` as users run it: real perf reports side by side in every format, and its p-values against
// scipy's Mann-Whitney U (an independent implementation) on sample sets of many sizes and shifts.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "support/cli.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ProcessResult;

const fs::path kOcrDir = MODELKIT_OCR_MODELS_DIR;

fs::path Perf(const test::TempDir& dir, const std::string& model, const std::string& name) {
  const fs::path output = dir.path() / name;
  const ProcessResult result = test::RunModelkit({"perf", "-m", (kOcrDir / model).string(), "--ep", "cpu",
                                                  "--iterations", "12", "--warmup", "2", "-q", "-o", output.string()});
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  return output;
}

TEST(CompareCli, RealReportsInEveryFormat) {
  const test::TempDir dir;
  const fs::path a = Perf(dir, "cls.onnx", "a.json");
  const fs::path b = Perf(dir, "cls.onnx", "b.json");
  const ProcessResult text = test::RunModelkit({"compare", a.string(), b.string()});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_EQ(text.stderr_text, "") << "the same model and settings: nothing to warn about";
  for (const char* row : {"\n  latency p50 ", "\n  latency p99 ", "\n  throughput "}) {
    EXPECT_NE(text.stdout_text.find(row), std::string::npos) << row << text.stdout_text;
  }

  const ProcessResult as_json = test::RunModelkit({"compare", a.string(), b.string(), "-f", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.stderr_text;
  const json compared = json::parse(as_json.stdout_text);
  const json& metrics = compared.at("comparisons").at(0).at("metrics");
  ASSERT_EQ(metrics.size(), 5u);
  // The figures are the reports' own: p50 in ns equals the baseline report's.
  std::ifstream in(a);
  EXPECT_DOUBLE_EQ(metrics.at(0).at("baseline").get<double>(), json::parse(in).at("latency_ns").at("p50"));
  EXPECT_EQ(metrics.at(0).at("samples"), json({12, 12}));

  // CSV: a header and one row per metric, read back by Python's csv module.
  const ProcessResult csv = test::RunModelkit({"compare", a.string(), b.string(), "-f", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.stderr_text;
  const fs::path csv_file = dir.path() / "c.csv";
  std::ofstream(csv_file) << csv.stdout_text;
  const ProcessResult rows = test::RunProcess(
      {"/usr/bin/python3", "-c",
       "import csv, sys; rows = list(csv.DictReader(open(sys.argv[1]))); "
       "print(len(rows), rows[0]['metric'], int(float(rows[0]['baseline_value'])), rows[0]['verdict'])",
       csv_file.string()});
  ASSERT_EQ(rows.exit_code, 0) << rows.stderr_text;
  std::ostringstream expected;
  expected << "5 latency p50 " << metrics.at(0).at("baseline").get<int64_t>() << " "
           << metrics.at(0).at("verdict").get<std::string>() << "\n";
  EXPECT_EQ(rows.stdout_text, expected.str());

  const ProcessResult markdown = test::RunModelkit({"compare", a.string(), b.string(), "-f", "md"});
  ASSERT_EQ(markdown.exit_code, 0) << markdown.stderr_text;
  EXPECT_NE(markdown.stdout_text.find("| Metric | Baseline | Candidate | Delta | Delta % | p-value | Verdict |\n"
                                      "|---|---:|---:|---:|---:|---:|---|\n| latency p50 |"),
            std::string::npos)
      << markdown.stdout_text;

  // Another model: compared, with a warning that names the difference.
  const fs::path other = Perf(dir, "det.onnx", "other.json");
  const ProcessResult mixed = test::RunModelkit({"compare", a.string(), other.string()});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.stderr_text;
  EXPECT_NE(mixed.stderr_text.find("warning: " + other.string() + " was not run like " + a.string() + ": model "),
            std::string::npos)
      << mixed.stderr_text;
}

// The simulated NPU made twice as slow (run_delay_percent=100) is found slower, significantly, with the right sign;
// a run against itself is noise everywhere.
TEST(CompareCli, AnInjectedSlowdownIsSignificantWithTheRightSign) {
  const test::TempDir dir;
  const std::map<std::string, std::string> default_catalog = {{"MODELKIT_EP_CATALOG", ""}};
  auto run = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "perf", "-m", (kOcrDir / "cls.onnx").string(), "--ep", "simnpu", "--iterations", "10", "--warmup", "2",
        "-q",   "-o", (dir.path() / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult result = test::RunModelkit(args, default_catalog);
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return (dir.path() / name).string();
  };
  const std::string fast = run("fast.json", {});
  const std::string slow = run("slow.json", {"--ep-options", "run_delay_percent=100"});
  const ProcessResult compared = test::RunModelkit({"compare", fast, slow, "-f", "json"});
  ASSERT_EQ(compared.exit_code, 0) << compared.stderr_text;
  for (const json& metric : json::parse(compared.stdout_text).at("comparisons").at(0).at("metrics")) {
    if (metric.at("metric") == "latency p50") {
      EXPECT_EQ(metric.at("verdict"), "worse") << metric.dump();
      EXPECT_GT(metric.at("delta_percent").get<double>(), 50) << metric.dump();
      EXPECT_LT(metric.at("p_value").get<double>(), 0.05) << metric.dump();
    }
    if (metric.at("metric") == "throughput") {
      EXPECT_EQ(metric.at("verdict"), "worse") << metric.dump();
    }
  }
  const ProcessResult itself = test::RunModelkit({"compare", fast, fast, "-f", "json"});
  ASSERT_EQ(itself.exit_code, 0) << itself.stderr_text;
  for (const json& metric : json::parse(itself.stdout_text).at("comparisons").at(0).at("metrics")) {
    EXPECT_TRUE(metric.at("verdict") == "noise" || metric.at("verdict") == "-") << metric.dump();
  }
}

// A report holding just what compare reads, with these raw samples.
void WriteReport(const fs::path& path, const std::vector<int64_t>& samples) {
  const json report = {{"benchmark_info",
                        {{"runtime", "onnx"},
                         {"running_model_path", "/m.onnx"},
                         {"ep", "CPUExecutionProvider"},
                         {"resolved_device", "cpu"},
                         {"effective_batch_size", 1},
                         {"input_source", "synthetic"}}},
                       {"model_info", {{"fed_input_shapes", json::array()}}},
                       {"host", json::object()},
                       {"raw_samples_ns", samples}};
  std::ofstream(path) << report.dump();
}

TEST(CompareCli, PValuesAgreeWithScipy) {
  const test::TempDir dir;
  std::mt19937 rng(7);
  struct Case {
    int n, m;
    double shift;
  };
  for (const Case& c : std::vector<Case>{{5, 5, 0},
                                         {5, 5, 300},
                                         {8, 8, 150},
                                         {10, 10, 100},
                                         {10, 20, 80},
                                         {20, 20, 50},
                                         {20, 20, 0},
                                         {30, 30, 40},
                                         {50, 50, 20},
                                         {100, 100, 0},
                                         {200, 150, 5},
                                         {6, 9, 200},
                                         {40, 40, 60},
                                         {25, 30, 70}}) {
    std::normal_distribution<double> noise(1000, 100);
    std::vector<int64_t> a, b;
    for (int i = 0; i < c.n; ++i) a.push_back(static_cast<int64_t>(noise(rng)));
    for (int i = 0; i < c.m; ++i) b.push_back(static_cast<int64_t>(noise(rng) + c.shift));
    WriteReport(dir.path() / "a.json", a);
    WriteReport(dir.path() / "b.json", b);
    const ProcessResult ours = test::RunModelkit(
        {"compare", (dir.path() / "a.json").string(), (dir.path() / "b.json").string(), "-f", "json"});
    ASSERT_EQ(ours.exit_code, 0) << ours.stderr_text;
    const json metric = json::parse(ours.stdout_text).at("comparisons").at(0).at("metrics").at(0);
    ASSERT_EQ(metric.at("metric"), "latency p50");
    const double p = metric.at("p_value").get<double>();

    const ProcessResult scipy = test::RunProcess(
        {"/usr/bin/python3", "-c",
         "import json, sys; from scipy.stats import mannwhitneyu; "
         "a = json.load(open(sys.argv[1]))['raw_samples_ns']; b = json.load(open(sys.argv[2]))['raw_samples_ns']; "
         "print(mannwhitneyu(a, b, alternative='two-sided').pvalue)",
         (dir.path() / "a.json").string(), (dir.path() / "b.json").string()});
    ASSERT_EQ(scipy.exit_code, 0) << scipy.stderr_text;
    const double reference = std::stod(scipy.stdout_text);
    const std::string where = std::to_string(c.n) + " vs " + std::to_string(c.m) + " samples, shift " +
                              std::to_string(c.shift) + ": scipy " + std::to_string(reference) + ", modelkit " +
                              std::to_string(p);
    if (reference >= 0.5) {
      EXPECT_EQ(metric.at("p_value_is"), "at_least") << where;
      EXPECT_DOUBLE_EQ(p, 0.5) << where;
    } else if (reference <= 0.0002) {
      EXPECT_LE(p, 0.002) << where;
    } else {
      EXPECT_NEAR(p, reference, 0.015) << where;  // ALGLIB's documented accuracy is about 0.01
    }
    if (std::abs(reference - 0.05) > 0.015) {
      EXPECT_EQ(p < 0.05, reference < 0.05) << where << ": the verdict must not depend on the implementation";
    }
  }
}

}  // namespace
}  // namespace modelkit
