#include "modelkit/report/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace modelkit::report {
namespace {

double NearestRank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  auto index = static_cast<size_t>(std::floor(n * p / 100.0));
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

std::optional<double> Percentile(std::span<const double> samples, double p) {
  if (samples.empty()) return std::nullopt;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return NearestRank(sorted, p);
}

std::optional<double> Mean(std::span<const double> samples) {
  if (samples.empty()) return std::nullopt;
  double sum = 0;
  for (double sample : samples) sum += sample;
  return sum / static_cast<double>(samples.size());
}

std::optional<SampleStats> ComputeStats(std::span<const double> samples) {
  if (samples.empty()) return std::nullopt;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  SampleStats stats;
  stats.mean = *Mean(samples);
  double squares = 0;
  for (double sample : samples) squares += (sample - stats.mean) * (sample - stats.mean);
  stats.std = std::sqrt(squares / static_cast<double>(samples.size()));
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.p50 = NearestRank(sorted, 50);
  stats.p90 = NearestRank(sorted, 90);
  stats.p95 = NearestRank(sorted, 95);
  stats.p99 = NearestRank(sorted, 99);
  return stats;
}

SampleStats ScaledStats(const SampleStats& stats, double factor) {
  return {stats.mean * factor, stats.std * factor, stats.min * factor, stats.max * factor,
          stats.p50 * factor,  stats.p90 * factor, stats.p95 * factor, stats.p99 * factor};
}

double RoundTo(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace modelkit::report
