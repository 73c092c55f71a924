// /metrics text: the Prometheus text format (checked line by line against its grammar), cumulative histogram buckets,
// and label values escaped.
#include "modelkit/serve/metrics.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace modelkit::serve {
namespace {

TEST(MetricsTest, TextFollowsThePrometheusFormat) {
  Metrics metrics;
  metrics.CountRequest("qwen", "cpu", "chat_completions", 200);
  metrics.CountRequest("qwen", "cpu", "chat_completions", 200);
  metrics.CountRequest("qwen", "cpu", "completions", 429);
  metrics.RecordGeneration("qwen", "cpu", 10, 5, 0.03, 0.004);
  metrics.RecordGeneration("qwen", "cpu", 7, 1, 2.0, -1);
  const std::string text = metrics.PrometheusText({{"qwen", "cpu", 3, 1}});

  // Every line is a comment (# HELP / # TYPE) or a sample: name{labels} value.
  const std::regex comment(R"(# (HELP|TYPE) [a-z_]+ .+)");
  const std::regex sample(R"([a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)+\})? [0-9.e+-]+|[a-z_]+\{.*\} \+Inf)");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(std::regex_match(line, comment) || std::regex_match(line, sample)) << line;
  }
  EXPECT_NE(
      text.find("modelkit_requests_total{model=\"qwen\",ep=\"cpu\",endpoint=\"chat_completions\",status=\"200\"} 2"),
      std::string::npos);
  EXPECT_NE(text.find("status=\"429\"} 1"), std::string::npos);
  EXPECT_NE(text.find("modelkit_prompt_tokens_total{model=\"qwen\",ep=\"cpu\"} 17"), std::string::npos);
  EXPECT_NE(text.find("modelkit_completion_tokens_total{model=\"qwen\",ep=\"cpu\"} 6"), std::string::npos);
  // Cumulative: 0.03 falls in le=0.05, 2.0 in le=2.5; +Inf counts both.
  EXPECT_NE(text.find("modelkit_time_to_first_token_seconds_bucket{model=\"qwen\",ep=\"cpu\",le=\"0.025\"} 0"),
            std::string::npos);
  EXPECT_NE(text.find("modelkit_time_to_first_token_seconds_bucket{model=\"qwen\",ep=\"cpu\",le=\"0.05\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("modelkit_time_to_first_token_seconds_bucket{model=\"qwen\",ep=\"cpu\",le=\"2.5\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("modelkit_time_to_first_token_seconds_count{model=\"qwen\",ep=\"cpu\"} 2"), std::string::npos);
  EXPECT_NE(text.find("modelkit_time_per_output_token_seconds_count{model=\"qwen\",ep=\"cpu\"} 1"), std::string::npos);
  EXPECT_NE(text.find("modelkit_queue_depth{model=\"qwen\",ep=\"cpu\"} 3"), std::string::npos);
  EXPECT_NE(text.find("modelkit_requests_running{model=\"qwen\",ep=\"cpu\"} 1"), std::string::npos);
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Metrics metrics;
  metrics.CountRequest("a\"b\\c\nd", "cpu", "completions", 200);
  EXPECT_NE(metrics.PrometheusText({}).find(R"(model="a\"b\\c\nd")"), std::string::npos);
}

}  // namespace
}  // namespace modelkit::serve
