// Latency statistics: pure functions over raw samples (no clocks, no ORT), so they are unit-tested with
// hand-made vectors.
#pragma once

#include <optional>
#include <span>

namespace modelkit::report {

// Nearest-rank percentile as winml-cli computes it: sort, index = floor(n * p / 100) clamped to n - 1.
// p50 of 10 samples is the 6th smallest; p90/p95/p99 of <= 10 samples is the max. nullopt for no samples.
std::optional<double> Percentile(std::span<const double> samples, double p);

struct SampleStats {
  double mean = 0;
  double std = 0;  // population standard deviation
  double min = 0;
  double max = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
};

// Stats over the samples; nullopt when there are none.
std::optional<SampleStats> ComputeStats(std::span<const double> samples);

// Every statistic times `factor` (a change of unit; std scales the same way).
SampleStats ScaledStats(const SampleStats& stats, double factor);

// Arithmetic mean; nullopt for no samples.
std::optional<double> Mean(std::span<const double> samples);

// Rounds half away from zero to `decimals` places, as reports print numbers.
double RoundTo(double value, int decimals);

}  // namespace modelkit::report
