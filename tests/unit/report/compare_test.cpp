#include "modelkit/report/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "modelkit/base/error.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;
using ::testing::HasSubstr;

// A minimal ONNX report: what compare reads.
ordered_json OnnxReport(const std::vector<int64_t>& samples_ns, const std::string& model = "/m/a.onnx",
                        const std::string& ep = "CPUExecutionProvider") {
  return {{"benchmark_info",
           {{"runtime", "onnx"},
            {"running_model_path", model},
            {"ep", ep},
            {"resolved_device", "cpu"},
            {"effective_batch_size", 2},
            {"input_source", "synthetic"}}},
          {"model_info", {{"fed_input_shapes", {{2, 3}}}}},
          {"host", {{"cpu_model", "x"}, {"ort_version", "1.30.0"}}},
          {"raw_samples_ns", samples_ns}};
}

// A genai report whose timed requests have these TTFTs (ms) and two stages; warm-up requests are ignored.
ordered_json GenaiReport(const std::vector<double>& ttft_ms) {
  ordered_json requests = ordered_json::array();
  requests.push_back({{"kind", "warmup"}});
  for (double ttft : ttft_ms) {
    requests.push_back({{"kind", "timed"},
                        {"model_ttft_duration_ms", ttft},
                        {"prefill_tokens_per_second", 1000.0 / ttft},
                        {"steady_state_decode_tokens_per_second", 50.0},
                        {"steady_state_tpot_ms", 20.0},
                        {"request_duration_ms", ttft + 100},
                        {"stages",
                         {{{"name", "ctx"}, {"prompt_duration_ms", ttft}, {"token_duration_ms", 0.0}},
                          {{"name", "iter"}, {"prompt_duration_ms", 0.0}, {"token_duration_ms", 80.0}}}}});
  }
  return {{"benchmark_info",
           {{"runtime", "genai"},
            {"bundle_dir", "/b"},
            {"ep", "config"},
            {"effective_device", "npu"},
            {"prompt_tokens", 10},
            {"generated_tokens", 5}}},
          {"host", {{"cpu_model", "x"}, {"ort_version", "1.30.0"}}},
          {"requests", requests}};
}

const ComparedMetric& Metric(const Comparison& comparison, const std::string& name) {
  for (const ComparedMetric& metric : comparison.metrics) {
    if (metric.name == name) return metric;
  }
  throw std::runtime_error("no metric " + name);
}

std::vector<int64_t> Around(int64_t center, int n) {
  std::vector<int64_t> samples;
  for (int i = 0; i < n; ++i) samples.push_back(center + (i % 7) * 10 - 30);
  return samples;
}

TEST(Compare, ASlowerCandidateIsWorseOnTheMedianAndThroughput) {
  const CompareResult result =
      CompareReports({{"a.json", OnnxReport(Around(1000, 20))}, {"b.json", OnnxReport(Around(2000, 20))}});
  EXPECT_EQ(result.runtime, "onnx");
  ASSERT_EQ(result.comparisons.size(), 1u);
  const Comparison& comparison = result.comparisons[0];
  EXPECT_EQ(comparison.baseline, "a.json");
  EXPECT_EQ(comparison.candidate, "b.json");
  const ComparedMetric& p50 = Metric(comparison, "latency p50");
  EXPECT_EQ(p50.baseline, 1000);  // nearest rank of 20: the 11th smallest
  EXPECT_EQ(p50.candidate, 2000);
  ASSERT_TRUE(p50.test.p_value);
  EXPECT_LT(*p50.test.p_value, kSignificanceLevel);
  EXPECT_EQ(p50.verdict, "worse");
  const ComparedMetric& throughput = Metric(comparison, "throughput");
  EXPECT_EQ(throughput.better, Better::kHigher);
  EXPECT_LT(throughput.candidate, throughput.baseline);
  EXPECT_EQ(throughput.verdict, "worse");
  // Tail percentiles are shown, not judged.
  EXPECT_EQ(Metric(comparison, "latency p99").verdict, "-");
  EXPECT_FALSE(Metric(comparison, "latency p99").test.p_value);
  EXPECT_TRUE(result.warnings.empty());
}

TEST(Compare, TheSameDistributionIsNoiseAndFewSamplesAreSaidSo) {
  std::vector<int64_t> shuffled = Around(1000, 20);
  std::reverse(shuffled.begin(), shuffled.end());
  const CompareResult same =
      CompareReports({{"a.json", OnnxReport(Around(1000, 20))}, {"b.json", OnnxReport(shuffled)}});
  EXPECT_EQ(Metric(same.comparisons[0], "latency p50").verdict, "noise");
  const CompareResult few = CompareReports({{"a.json", OnnxReport({1, 2, 3})}, {"b.json", OnnxReport({4, 5, 6})}});
  EXPECT_EQ(Metric(few.comparisons[0], "latency p50").verdict, "too few samples");
}

TEST(Compare, DifferentSettingsAreNamedInAWarning) {
  const CompareResult result = CompareReports(
      {{"a.json", OnnxReport(Around(1000, 10))}, {"b.json", OnnxReport(Around(1000, 10), "/m/b.onnx", "X")}});
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_EQ(result.warnings[0],
            "b.json was not run like a.json: model /m/a.onnx vs /m/b.onnx; EP "
            "CPUExecutionProvider vs X");
}

TEST(Compare, EveryCandidateAgainstTheBaseline) {
  const CompareResult result = CompareReports({{"a.json", OnnxReport(Around(1000, 10))},
                                               {"b.json", OnnxReport(Around(500, 10))},
                                               {"c.json", OnnxReport(Around(1000, 10))}});
  ASSERT_EQ(result.comparisons.size(), 2u);
  EXPECT_EQ(Metric(result.comparisons[0], "latency p50").verdict, "better");
  EXPECT_EQ(result.comparisons[1].candidate, "c.json");
  EXPECT_EQ(Metric(result.comparisons[1], "latency p50").verdict, "noise");
}

TEST(Compare, GenaiFiguresArePerRequestMeansWithStages) {
  const CompareResult result = CompareReports(
      {{"a.json", GenaiReport({10, 11, 12, 13, 14, 15})}, {"b.json", GenaiReport({20, 21, 22, 23, 24, 25})}});
  const Comparison& comparison = result.comparisons[0];
  const ComparedMetric& ttft = Metric(comparison, "TTFT");
  EXPECT_DOUBLE_EQ(ttft.baseline, 12.5e6);  // ns
  EXPECT_DOUBLE_EQ(ttft.candidate, 22.5e6);
  EXPECT_EQ(ttft.baseline_samples, 6u) << "warm-up requests are not samples";
  EXPECT_EQ(ttft.verdict, "worse");
  EXPECT_EQ(Metric(comparison, "prefill tokens/s").verdict, "worse");
  EXPECT_EQ(Metric(comparison, "decode tokens/s").verdict, "noise") << "identical everywhere";
  EXPECT_EQ(Metric(comparison, "stage ctx prompt").verdict, "worse");
  EXPECT_EQ(Metric(comparison, "stage iter token").verdict, "noise");
}

TEST(Compare, BadInputsAreUsageErrorsNamingTheReport) {
  auto message = [](const std::vector<NamedReport>& reports) {
    try {
      CompareReports(reports);
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::kUsage);
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({{"a.json", OnnxReport({1, 2})}}), HasSubstr("at least two reports"));
  EXPECT_THAT(message({{"a.json", OnnxReport({1, 2})}, {"g.json", GenaiReport({1})}}),
              HasSubstr("g.json is the report of a genai bundle and a.json of an ONNX model"));
  ordered_json broken = OnnxReport({1, 2});
  broken.erase("raw_samples_ns");
  EXPECT_THAT(message({{"a.json", OnnxReport({1, 2})}, {"b.json", broken}}),
              HasSubstr("b.json: $.raw_samples_ms is missing"));
  EXPECT_THAT(message({{"a.json", OnnxReport({1, 2})}, {"x.json", ordered_json::array()}}),
              HasSubstr("x.json: $.benchmark_info is missing"));
}

TEST(CompareFormats, TextMarkdownCsvAndJsonCarryTheSameRows) {
  const CompareResult result =
      CompareReports({{"a.json", OnnxReport(Around(3000, 10))}, {"b, \"new\".json", OnnxReport(Around(1500, 10))}});
  const std::string text = CompareText(result);
  EXPECT_THAT(text, HasSubstr("Baseline:  a.json\nCandidate: b, \"new\".json\n"));
  // p50 of 10 samples (2970..3030 ns) is the 6th smallest: 2990 ns; the candidate's 1490 ns.
  EXPECT_THAT(text, HasSubstr("  latency p50   2.99 µs           1.49 µs            -1.50 µs           -50.2%   "));
  EXPECT_THAT(CompareMarkdown(result), HasSubstr("| latency p50 | 2.99 µs | 1.49 µs | -1.50 µs | -50.2% |"));
  const std::string csv = CompareCsv(result);
  EXPECT_THAT(csv,
              HasSubstr("\"a.json\",\"b, \"\"new\"\".json\",\"latency p50\",\"ns\",\"lower\",2990.0,1490.0,-1500.0,"
                        "-50.16722408026756,"));
  const ordered_json json = CompareJson(result);
  EXPECT_EQ(json["comparisons"][0]["metrics"][0]["metric"], "latency p50");
  EXPECT_EQ(json["comparisons"][0]["metrics"][0]["verdict"], "better");
  EXPECT_EQ(json["comparisons"][0]["metrics"][0]["samples"], ordered_json({10, 10}));
}

}  // namespace
}  // namespace modelkit::report
