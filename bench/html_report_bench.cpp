// Rendering the HTML report of big runs: an ONNX run of 10,000 samples and a bundle run of 2,000 decode steps (10
// requests of 200 tokens), each rendered alone and both compared on one page. Prints the time and the size of each
// page against the targets (< 1 s, < 2 MB). Usage: modelkit_html_report_bench
#include <chrono>
#include <cstdio>
#include <random>

#include "modelkit/report/html_report.h"

namespace {

using nlohmann::ordered_json;

ordered_json OnnxReport(std::mt19937& rng) {
  std::lognormal_distribution<double> latency(std::log(3e6), 0.05);
  ordered_json samples = ordered_json::array();
  for (int i = 0; i < 10000; ++i) samples.push_back(static_cast<int64_t>(latency(rng)));
  return {{"benchmark_info", {{"runtime", "onnx"}, {"running_model_path", "/m.onnx"}, {"effective_batch_size", 1}}},
          {"raw_samples_ns", samples}};
}

ordered_json GenaiReport(std::mt19937& rng) {
  std::lognormal_distribution<double> step(std::log(20.0), 0.1);
  ordered_json requests = ordered_json::array();
  for (int r = 0; r < 10; ++r) {
    ordered_json steps = ordered_json::array();
    for (int i = 0; i < 200; ++i) steps.push_back(step(rng));
    requests.push_back({{"kind", "timed"},
                        {"index", r},
                        {"model_ttft_duration_ms", 100.0 + r},
                        {"steady_state_decode_tokens_per_second", 50.0 + r},
                        {"decode_token_durations_ms", steps}});
  }
  return {
      {"benchmark_info", {{"runtime", "genai"}}},
      {"requests", requests},
      {"aggregate",
       {{"stages",
         {{{"name", "ctx"}, {"prompt_duration_ms", {{"mean", 100.0}}}, {"token_duration_ms", {{"mean", 0.0}}}},
          {{"name", "iter"}, {"prompt_duration_ms", {{"mean", 0.0}}}, {"token_duration_ms", {{"mean", 4000.0}}}}}}}}};
}

void Measure(const char* what, const std::vector<modelkit::report::NamedReport>& reports) {
  const auto start = std::chrono::steady_clock::now();
  const std::string html = modelkit::report::HtmlReport(reports);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double mb = static_cast<double>(html.size()) / 1e6;
  std::printf("%-34s %7.3f s (target < 1 s: %s)  %6.2f MB (target < 2 MB: %s)\n", what, seconds,
              seconds < 1 ? "meets" : "MISSES", mb, mb < 2 ? "meets" : "MISSES");
}

}  // namespace

int main() {
  std::mt19937 rng(1);
  const ordered_json onnx = OnnxReport(rng);
  const ordered_json onnx_again = OnnxReport(rng);
  const ordered_json genai = GenaiReport(rng);
  Measure("ONNX, 10,000 samples", {{"a.json", onnx}});
  Measure("ONNX, two runs compared", {{"a.json", onnx}, {"b.json", onnx_again}});
  Measure("genai, 2,000 decode steps", {{"g.json", genai}});
  return 0;
}
