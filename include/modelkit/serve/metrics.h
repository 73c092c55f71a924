// What GET /metrics reports, in Prometheus' text format (version 0.0.4): requests by model, EP, endpoint and status;
// prompt and completion tokens; time to first token and time per output token as histograms; queue depth and running
// requests as gauges read when scraped. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace modelkit::serve {

class Metrics {
 public:
  struct Gauges {
    std::string model;
    std::string ep;
    int waiting = 0;
    int running = 0;
  };

  void CountRequest(const std::string& model, const std::string& ep, const std::string& endpoint, int status);
  // One finished generation: its token counts, its time to first token, and the mean time per later token (negative
  // when fewer than two tokens were generated).
  void RecordGeneration(const std::string& model, const std::string& ep, int64_t prompt_tokens,
                        int64_t completion_tokens, double ttft_s, double tpot_s);
  std::string PrometheusText(const std::vector<Gauges>& gauges) const;

 private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<int64_t> counts;  // per bound, not cumulative
    double sum = 0;
    int64_t count = 0;
    void Observe(double value);
  };
  struct ModelSeries {
    int64_t prompt_tokens = 0;
    int64_t completion_tokens = 0;
    Histogram ttft;
    Histogram tpot;
  };
  using Labels = std::pair<std::string, std::string>;  // model, ep

  ModelSeries& Series(const Labels& labels);

  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, std::string, int>, int64_t> requests_;
  std::map<Labels, ModelSeries> series_;
};

}  // namespace modelkit::serve
