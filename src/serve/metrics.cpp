#include "modelkit/serve/metrics.h"

#include <fmt/format.h>

namespace modelkit::serve {
namespace {

// Buckets in seconds: the first token of a small model on a CPU takes milliseconds to seconds, a later one less.
const std::vector<double> kTtftBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
const std::vector<double> kTpotBounds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};

// A label value with \, " and newline escaped, as the text format requires.
std::string Escaped(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ModelLabels(const std::string& model, const std::string& ep) {
  return "model=\"" + Escaped(model) + "\",ep=\"" + Escaped(ep) + "\"";
}

std::string Number(double value) { return fmt::format("{}", value); }

}  // namespace

void Metrics::Histogram::Observe(double value) {
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (value <= bounds[i]) {
      ++counts[i];
      break;
    }
  }
  sum += value;
  ++count;
}

Metrics::ModelSeries& Metrics::Series(const Labels& labels) {
  auto [it, inserted] = series_.try_emplace(labels);
  if (inserted) {
    it->second.ttft = {kTtftBounds, std::vector<int64_t>(kTtftBounds.size(), 0), 0, 0};
    it->second.tpot = {kTpotBounds, std::vector<int64_t>(kTpotBounds.size(), 0), 0, 0};
  }
  return it->second;
}

void Metrics::CountRequest(const std::string& model, const std::string& ep, const std::string& endpoint, int status) {
  std::lock_guard lock(mutex_);
  ++requests_[{model, ep, endpoint, status}];
}

void Metrics::RecordGeneration(const std::string& model, const std::string& ep, int64_t prompt_tokens,
                               int64_t completion_tokens, double ttft_s, double tpot_s) {
  std::lock_guard lock(mutex_);
  ModelSeries& series = Series({model, ep});
  series.prompt_tokens += prompt_tokens;
  series.completion_tokens += completion_tokens;
  if (completion_tokens > 0) series.ttft.Observe(ttft_s);
  if (tpot_s >= 0) series.tpot.Observe(tpot_s);
}

std::string Metrics::PrometheusText(const std::vector<Gauges>& gauges) const {
  std::lock_guard lock(mutex_);
  std::string out;
  out += "# HELP modelkit_requests_total HTTP requests to the completion endpoints, by answer status.\n";
  out += "# TYPE modelkit_requests_total counter\n";
  for (const auto& [key, count] : requests_) {
    const auto& [model, ep, endpoint, status] = key;
    out += "modelkit_requests_total{" + ModelLabels(model, ep) + ",endpoint=\"" + Escaped(endpoint) + "\",status=\"" +
           std::to_string(status) + "\"} " + std::to_string(count) + "\n";
  }
  out += "# HELP modelkit_prompt_tokens_total Prompt tokens of finished generations.\n";
  out += "# TYPE modelkit_prompt_tokens_total counter\n";
  for (const auto& [labels, series] : series_) {
    out += "modelkit_prompt_tokens_total{" + ModelLabels(labels.first, labels.second) + "} " +
           std::to_string(series.prompt_tokens) + "\n";
  }
  out += "# HELP modelkit_completion_tokens_total Generated tokens.\n";
  out += "# TYPE modelkit_completion_tokens_total counter\n";
  for (const auto& [labels, series] : series_) {
    out += "modelkit_completion_tokens_total{" + ModelLabels(labels.first, labels.second) + "} " +
           std::to_string(series.completion_tokens) + "\n";
  }
  const auto histogram = [&](const char* name, const char* help, Histogram ModelSeries::*member) {
    out += std::string("# HELP ") + name + " " + help + "\n";
    out += std::string("# TYPE ") + name + " histogram\n";
    for (const auto& [labels, series] : series_) {
      const Histogram& h = series.*member;
      const std::string base = ModelLabels(labels.first, labels.second);
      int64_t cumulative = 0;
      for (size_t i = 0; i < h.bounds.size(); ++i) {
        cumulative += h.counts[i];
        out += std::string(name) + "_bucket{" + base + ",le=\"" + Number(h.bounds[i]) + "\"} " +
               std::to_string(cumulative) + "\n";
      }
      out += std::string(name) + "_bucket{" + base + ",le=\"+Inf\"} " + std::to_string(h.count) + "\n";
      out += std::string(name) + "_sum{" + base + "} " + Number(h.sum) + "\n";
      out += std::string(name) + "_count{" + base + "} " + std::to_string(h.count) + "\n";
    }
  };
  histogram("modelkit_time_to_first_token_seconds", "From admission to the first generated token.", &ModelSeries::ttft);
  histogram("modelkit_time_per_output_token_seconds", "Mean time per generated token after the first.",
            &ModelSeries::tpot);
  out += "# HELP modelkit_queue_depth Requests waiting for a session.\n";
  out += "# TYPE modelkit_queue_depth gauge\n";
  for (const Gauges& gauge : gauges) {
    out += "modelkit_queue_depth{" + ModelLabels(gauge.model, gauge.ep) + "} " + std::to_string(gauge.waiting) + "\n";
  }
  out += "# HELP modelkit_requests_running Requests generating now.\n";
  out += "# TYPE modelkit_requests_running gauge\n";
  for (const Gauges& gauge : gauges) {
    out +=
        "modelkit_requests_running{" + ModelLabels(gauge.model, gauge.ep) + "} " + std::to_string(gauge.running) + "\n";
  }
  return out;
}

}  // namespace modelkit::serve
