#include "modelkit/report/stats.h"

#include <vector>

#include <gtest/gtest.h>

namespace modelkit::report {
namespace {

std::vector<double> Range(int from, int to) {  // from..to inclusive
  std::vector<double> out;
  for (int i = from; i <= to; ++i) out.push_back(i);
  return out;
}

TEST(StatsPercentile, EmptyIsNullopt) {
  const std::vector<double> none;
  EXPECT_FALSE(Percentile(none, 50).has_value());
  EXPECT_FALSE(Percentile(none, 0).has_value());
  EXPECT_FALSE(Percentile(none, 100).has_value());
}

TEST(StatsPercentile, SingleSampleIsEveryPercentile) {
  const std::vector<double> one{7.25};
  for (double p : {0.0, 1.0, 50.0, 90.0, 95.0, 99.0, 100.0}) {
    ASSERT_TRUE(Percentile(one, p).has_value()) << p;
    EXPECT_EQ(*Percentile(one, p), 7.25) << p;
  }
}

TEST(StatsPercentile, TenSamplesP50IsSixthSmallest) {
  const std::vector<double> ten = Range(1, 10);
  EXPECT_EQ(*Percentile(ten, 50), 6.0);  // index floor(10 * 50 / 100) = 5 -> 6th smallest
  EXPECT_EQ(*Percentile(ten, 0), 1.0);
  EXPECT_EQ(*Percentile(ten, 10), 2.0);
  EXPECT_EQ(*Percentile(ten, 49), 5.0);  // floor(4.9) = 4
}

TEST(StatsPercentile, HighPercentilesOfTenOrFewerAreTheMax) {
  for (int n = 1; n <= 10; ++n) {
    const std::vector<double> samples = Range(1, n);
    EXPECT_EQ(*Percentile(samples, 90), n) << n;
    EXPECT_EQ(*Percentile(samples, 95), n) << n;
    EXPECT_EQ(*Percentile(samples, 99), n) << n;
  }
  // p90 of 11 samples: floor(9.9) = 9 -> the 10th smallest, no longer the max.
  EXPECT_EQ(*Percentile(Range(1, 11), 90), 10.0);
}

TEST(StatsPercentile, HundredSamples) {
  const std::vector<double> hundred = Range(1, 100);
  EXPECT_EQ(*Percentile(hundred, 50), 51.0);
  EXPECT_EQ(*Percentile(hundred, 90), 91.0);
  EXPECT_EQ(*Percentile(hundred, 95), 96.0);
  EXPECT_EQ(*Percentile(hundred, 99), 100.0);  // index 99 -> the 100th smallest
  EXPECT_EQ(*Percentile(hundred, 98), 99.0);
}

TEST(StatsPercentile, IndexClampedToLastSample) {
  const std::vector<double> samples{3, 1, 2};
  EXPECT_EQ(*Percentile(samples, 100), 3.0);
  EXPECT_EQ(*Percentile(samples, 150), 3.0);
}

TEST(StatsPercentile, UnsortedInputIsSortedFirstAndNotModified) {
  const std::vector<double> samples{9, 1, 8, 2, 7, 3, 6, 4, 5, 10};
  EXPECT_EQ(*Percentile(samples, 50), 6.0);
  EXPECT_EQ(*Percentile(samples, 0), 1.0);
  EXPECT_EQ(*Percentile(samples, 99), 10.0);
  EXPECT_EQ(samples, (std::vector<double>{9, 1, 8, 2, 7, 3, 6, 4, 5, 10}));
}

TEST(StatsMean, EmptySingleAndSeveral) {
  EXPECT_FALSE(Mean(std::vector<double>{}).has_value());
  EXPECT_EQ(*Mean(std::vector<double>{4.5}), 4.5);
  EXPECT_EQ(*Mean(std::vector<double>{1, 2, 3, 4}), 2.5);
  EXPECT_EQ(*Mean(std::vector<double>{-2, 2}), 0.0);
}

TEST(StatsCompute, EmptyIsNullopt) { EXPECT_FALSE(ComputeStats(std::vector<double>{}).has_value()); }

TEST(StatsCompute, SingleSample) {
  const auto stats = ComputeStats(std::vector<double>{3.5});
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->mean, 3.5);
  EXPECT_EQ(stats->std, 0.0);
  EXPECT_EQ(stats->min, 3.5);
  EXPECT_EQ(stats->max, 3.5);
  EXPECT_EQ(stats->p50, 3.5);
  EXPECT_EQ(stats->p90, 3.5);
  EXPECT_EQ(stats->p95, 3.5);
  EXPECT_EQ(stats->p99, 3.5);
}

TEST(StatsCompute, PopulationStandardDeviation) {
  // Mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; 32 / 8 = 4 -> std 2 (sample std would be 2.138).
  const auto stats = ComputeStats(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9});
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->mean, 5.0);
  EXPECT_EQ(stats->std, 2.0);
  EXPECT_EQ(stats->min, 2.0);
  EXPECT_EQ(stats->max, 9.0);
  EXPECT_EQ(stats->p50, 5.0);  // index 4 of the sorted list
  EXPECT_EQ(stats->p90, 9.0);
}

TEST(StatsCompute, UnsortedTenSamples) {
  const auto stats = ComputeStats(std::vector<double>{10, 3, 7, 1, 9, 2, 8, 4, 6, 5});
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->mean, 5.5);
  EXPECT_EQ(stats->min, 1.0);
  EXPECT_EQ(stats->max, 10.0);
  EXPECT_EQ(stats->p50, 6.0);
  EXPECT_EQ(stats->p90, 10.0);
  EXPECT_EQ(stats->p95, 10.0);
  EXPECT_EQ(stats->p99, 10.0);
  EXPECT_DOUBLE_EQ(stats->std, 2.8722813232690143);  // sqrt(8.25)
}

TEST(StatsCompute, HundredSamples) {
  std::vector<double> samples = Range(1, 100);
  std::swap(samples[0], samples[99]);
  std::swap(samples[10], samples[60]);
  const auto stats = ComputeStats(samples);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->mean, 50.5);
  EXPECT_EQ(stats->p50, 51.0);
  EXPECT_EQ(stats->p90, 91.0);
  EXPECT_EQ(stats->p95, 96.0);
  EXPECT_EQ(stats->p99, 100.0);
  EXPECT_DOUBLE_EQ(stats->std, 28.86607004772212);  // sqrt((100^2 - 1) / 12)
}

TEST(StatsRoundTo, HalfAwayFromZero) {
  EXPECT_EQ(RoundTo(2.5, 0), 3.0);
  EXPECT_EQ(RoundTo(-2.5, 0), -3.0);
  EXPECT_EQ(RoundTo(0.5, 0), 1.0);
  EXPECT_EQ(RoundTo(-0.5, 0), -1.0);
  EXPECT_EQ(RoundTo(3.5, 0), 4.0);
  EXPECT_DOUBLE_EQ(RoundTo(0.125, 2), 0.13);  // exact binary tie
  EXPECT_DOUBLE_EQ(RoundTo(-0.125, 2), -0.13);
  EXPECT_DOUBLE_EQ(RoundTo(1.0625, 3), 1.063);
  EXPECT_DOUBLE_EQ(RoundTo(-1.0625, 3), -1.063);
  EXPECT_DOUBLE_EQ(RoundTo(0.375, 2), 0.38);
}

TEST(StatsRoundTo, OrdinaryValues) {
  EXPECT_DOUBLE_EQ(RoundTo(1.23456, 3), 1.235);
  EXPECT_DOUBLE_EQ(RoundTo(1.23449, 3), 1.234);
  EXPECT_DOUBLE_EQ(RoundTo(-1.23456, 3), -1.235);
  EXPECT_DOUBLE_EQ(RoundTo(1234.5678, 2), 1234.57);
  EXPECT_DOUBLE_EQ(RoundTo(0.004, 2), 0.0);
  EXPECT_DOUBLE_EQ(RoundTo(7.0, 3), 7.0);
  EXPECT_EQ(RoundTo(0.0, 3), 0.0);
}

}  // namespace
}  // namespace modelkit::report
