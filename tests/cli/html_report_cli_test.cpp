// The HTML report as a browser sees it: `perf -f html` and `modelkit report` pages loaded by headless chromium with
// networking off, the charts counted in the DOM it built against the runs' own numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/browser.h"
#include "support/cli.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ProcessResult;

const fs::path kOcrDir = MODELKIT_OCR_MODELS_DIR;

const json& Figure(const json& census, const std::string& caption, int nth = 0) {
  for (const json& figure : census.at("figures")) {
    if (figure.at("caption") == caption && nth-- == 0) return figure;
  }
  static const json kNone = json::object();
  ADD_FAILURE() << "no figure '" << caption << "' in " << census.dump();
  return kNone;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(HtmlReportCli, PerfPageHasTheLatencyChartsOfItsSamples) {
  const test::TempDir dir;
  const int iterations = 25;
  const ProcessResult perf = test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--ep", "cpu",
                                                "--iterations", std::to_string(iterations), "--warmup", "2", "-f",
                                                "html", "-o", (dir.path() / "a.json").string()});
  ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  const fs::path page = dir.path() / "a.html";
  std::ofstream(page) << perf.stdout_text;
  // Self-contained: no script, nothing fetched.
  EXPECT_EQ(perf.stdout_text.find("<script"), std::string::npos);
  EXPECT_EQ(perf.stdout_text.find("http://"), std::string::npos);
  EXPECT_EQ(perf.stdout_text.find("https://"), std::string::npos);

  const json census = test::BrowserCensus(page);
  ASSERT_TRUE(census.is_object());
  EXPECT_EQ(census.at("external"), json::array()) << "no src or href at all";
  EXPECT_EQ(census.at("requests"), json::array()) << "the page asked the network for nothing";
  EXPECT_GT(census.at("ink").get<double>(), 0.02) << "the screenshot is not blank";
  const json& histogram = Figure(census, "Latency distribution");
  const int bins = static_cast<int>(std::ceil(std::sqrt(iterations)));
  EXPECT_EQ(histogram.value("bars", 0), bins);
  EXPECT_EQ(histogram.value("bar_counts", 0), iterations) << "every timed iteration in one bar";
  EXPECT_EQ(histogram.value("table_rows", 0), bins) << "the data table has a row per bar";
  EXPECT_EQ(histogram.value("svg_title", ""), "Latency distribution");
  const json& cdf = Figure(census, "Latency CDF");
  EXPECT_EQ(cdf.value("points", 0), iterations);
  EXPECT_EQ(cdf.value("markers", 0), 3) << "p50, p90, p99";
  EXPECT_EQ(cdf.value("table_rows", 0), iterations);
}

// The census can fail: a page that fetches an image is seen asking for it.
TEST(HtmlReportCli, TheBrowserCheckSeesAPageThatFetches) {
  const test::TempDir dir;
  std::ofstream(dir.path() / "fetching.html")
      << "<!DOCTYPE html><html><body><p>text</p><img src=\"http://example.invalid/chart.png\"></body></html>";
  const json census = test::BrowserCensus(dir.path() / "fetching.html");
  ASSERT_TRUE(census.is_object());
  EXPECT_EQ(census.at("external"), json({"http://example.invalid/chart.png"}));
  EXPECT_EQ(census.at("requests"), json({"http://example.invalid/chart.png"}));
}

TEST(HtmlReportCli, SeveralReportsMakeOneComparingPage) {
  const test::TempDir dir;
  for (const char* name : {"a.json", "b.json"}) {
    const ProcessResult perf = test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--ep", "cpu",
                                                  "--iterations", "9", "-q", "-o", (dir.path() / name).string()});
    ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  }
  const fs::path page = dir.path() / "both.html";
  const ProcessResult report = test::RunModelkit(
      {"report", (dir.path() / "a.json").string(), (dir.path() / "b.json").string(), "-o", page.string()});
  ASSERT_EQ(report.exit_code, 0) << report.stderr_text;
  EXPECT_EQ(report.stderr_text, "Report written to: " + page.string() + "\n");
  EXPECT_NE(ReadFile(page).find("</html>"), std::string::npos);
  const json census = test::BrowserCensus(page);
  ASSERT_TRUE(census.is_object());
  EXPECT_EQ(census.at("comparison_rows"), 5) << "the compare table: p50, mean, p90, p99, throughput";
  const json& all = Figure(census, "Latency CDF of every run");
  EXPECT_EQ(all.value("series", 0), 2);
  EXPECT_EQ(all.value("points", 0), 18);
  EXPECT_EQ(Figure(census, "Latency distribution", 1).value("bar_counts", 0), 9) << "each run has its own charts";

  // An existing page is kept unless --overwrite.
  test::ExpectErrorLine(test::RunModelkit({"report", (dir.path() / "a.json").string(), "-o", page.string()}), 2,
                        "--overwrite");
}

}  // namespace
}  // namespace modelkit
