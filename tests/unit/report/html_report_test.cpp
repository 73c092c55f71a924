#include "modelkit/report/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "report/svg_chart.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(SvgChart, HistogramBinsCoverEveryValueOnce) {
  std::vector<double> values;
  for (int i = 0; i < 50; ++i) values.push_back(i * 0.37);
  const std::vector<HistogramBin> bins = Histogram(values);
  ASSERT_EQ(bins.size(), 8u);  // ceil(sqrt(50))
  size_t total = 0;
  for (const HistogramBin& bin : bins) total += bin.count;
  EXPECT_EQ(total, 50u);
  EXPECT_DOUBLE_EQ(bins.front().from, 0);
  EXPECT_DOUBLE_EQ(bins.back().to, 49 * 0.37) << "the largest value is in the last bin";
  EXPECT_EQ(Histogram({}).size(), 0u);
  const std::vector<HistogramBin> same = Histogram({2, 2, 2});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].count, 3u);
  EXPECT_EQ(Histogram(std::vector<double>(10000, 1.0)).size(), 1u);
  std::vector<double> many;
  for (int i = 0; i < 10000; ++i) many.push_back(i);
  EXPECT_EQ(Histogram(many).size(), 30u) << "at most 30 bins";
}

TEST(SvgChart, TextIsEscaped) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  const std::string svg = SvgHistogram("<b>", Histogram({1, 2}), Axis{"x & y"}, Axis{"n"});
  EXPECT_THAT(svg, HasSubstr("<title>&lt;b&gt;</title>"));
  EXPECT_THAT(svg, HasSubstr("x &amp; y"));
  EXPECT_THAT(svg, Not(HasSubstr("<b>")));
}

ordered_json OnnxReport() {
  return {
      {"benchmark_info", {{"runtime", "onnx"}, {"running_model_path", "/m/<model>.onnx"}, {"effective_batch_size", 1}}},
      {"raw_samples_ns", {1000, 1100, 1200, 1300, 5000}},
      {"warnings", {"a <warning>"}}};
}

TEST(HtmlReport, OnePageWithoutScriptsOrExternalResources) {
  const std::string html = HtmlReport({{"run.json", OnnxReport()}});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(html, HasSubstr("<meta charset=\"utf-8\">"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("href=")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, HasSubstr("/m/&lt;model&gt;.onnx"));
  EXPECT_THAT(html, HasSubstr("<li class=\"warning\">a &lt;warning&gt;</li>"));
  EXPECT_THAT(html, HasSubstr("<figcaption>Latency distribution</figcaption>"));
  EXPECT_THAT(html, HasSubstr("<figcaption>Latency CDF</figcaption>"));
  EXPECT_THAT(html, HasSubstr("latency (µs)")) << "axes carry the unit";
  EXPECT_THAT(html, Not(HasSubstr("id=\"comparison\""))) << "one report: nothing to compare";
}

TEST(HtmlReport, ALargeRunIsDrawnThroughAtMost500CdfPoints) {
  ordered_json report = OnnxReport();
  ordered_json samples = ordered_json::array();
  for (int i = 0; i < 10000; ++i) samples.push_back(1000 + i);
  report["raw_samples_ns"] = samples;
  const std::string html = HtmlReport({{"run.json", report}});
  size_t points = 0;
  for (size_t at = html.find("<circle class=\"point"); at != std::string::npos;
       at = html.find("<circle class=\"point", at + 1)) {
    ++points;
  }
  EXPECT_EQ(points, 500u);
  EXPECT_THAT(html, HasSubstr("<tr><td>run.json</td><td>11.0</td><td>1.00</td></tr>\n</tbody>"))
      << "the largest sample (10.999 us) is the last point";
  EXPECT_LT(html.size(), 2'000'000u);
}

TEST(HtmlReport, ReportsOfBothKindsRenderWithoutAComparison) {
  const ordered_json genai = {{"benchmark_info", {{"runtime", "genai"}}}, {"requests", ordered_json::array()}};
  const std::string html = HtmlReport({{"a.json", OnnxReport()}, {"g.json", genai}});
  EXPECT_THAT(html, Not(HasSubstr("id=\"comparison\"")));
  EXPECT_THAT(html, HasSubstr("No timed requests."));
}

TEST(HtmlReport, NotAReportIsAUsageError) {
  try {
    HtmlReport({{"x.json", ordered_json::array()}});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    EXPECT_THAT(std::string(error.what()), HasSubstr("x.json: $.benchmark_info.runtime"));
  }
}

}  // namespace
}  // namespace modelkit::report
