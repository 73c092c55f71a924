// Token choice and stop conditions on hand-written logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "generate/repetition_penalty.h"
#include "modelkit/generate/sampling.h"
#include "modelkit/generate/stop_conditions.h"

namespace modelkit::generate {
namespace {

SamplingOptions Options(bool do_sample, double temperature, int top_k, double top_p = 1.0) {
  SamplingOptions options;
  options.do_sample = do_sample;
  options.temperature = temperature;
  options.top_k = top_k;
  options.top_p = top_p;
  return options;
}

TEST(SamplingTest, GreedyTakesTheFirstMaximum) {
  const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(ArgMax(logits), 1);
  Sampler greedy(SamplingOptions{}, 1);
  EXPECT_EQ(greedy.Pick(logits), 1);
}

TEST(SamplingTest, ArgMaxMatchesMaxElementOnLongVectorsWithTies) {
  for (const size_t size : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{1000}, size_t{151937}}) {
    std::vector<float> logits(size);
    for (size_t i = 0; i < size; ++i) logits[i] = static_cast<float>((i * 7919) % 1009) - 500.0f;
    if (size > 20) logits[size - 3] = logits[17] = 1e4f;  // a tie: the first index wins
    EXPECT_EQ(ArgMax(logits), std::max_element(logits.begin(), logits.end()) - logits.begin()) << size;
  }
  const std::vector<float> negative = {-3.0f, -1.0f, -2.0f, -1.0f, -5.0f, -9.0f, -1.5f, -8.0f, -0.5f};
  EXPECT_EQ(ArgMax(negative), 8);
}

TEST(SamplingTest, GreedyWhenTopKIsOneOrTemperatureZero) {
  EXPECT_TRUE(IsGreedy(Options(false, 1.0, 50)));
  EXPECT_TRUE(IsGreedy(Options(true, 1.0, 1)));
  EXPECT_TRUE(IsGreedy(Options(true, 0.0, 50)));
  EXPECT_FALSE(IsGreedy(Options(true, 0.7, 5)));
}

TEST(SamplingTest, TopKNeverPicksOutsideTheK) {
  const std::vector<float> logits = {1.0f, 5.0f, 4.9f, 0.0f, 4.8f};
  Sampler sampler(Options(true, 10.0, 2), 7);
  std::map<int32_t, int> counts;
  for (int i = 0; i < 2000; ++i) ++counts[sampler.Pick(logits)];
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_GT(counts[1], 800);
  EXPECT_GT(counts[2], 800);
}

TEST(SamplingTest, TopPKeepsTheSmallestNucleus) {
  // Probabilities about 0.665, 0.245, 0.09: top_p 0.6 leaves only the first.
  const std::vector<float> logits = {2.0f, 1.0f, 0.0f};
  Sampler narrow(Options(true, 1.0, 0, 0.6), 3);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(narrow.Pick(logits), 0);
  Sampler wide(Options(true, 1.0, 0, 0.8), 3);
  std::map<int32_t, int> counts;
  for (int i = 0; i < 3000; ++i) ++counts[wide.Pick(logits)];
  EXPECT_EQ(counts.count(2), 0u);
  EXPECT_NEAR(counts[0] / 3000.0, 0.665 / 0.91, 0.04);
}

TEST(SamplingTest, SameSeedSameDraws) {
  std::vector<float> logits(100);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(i % 7);
  Sampler a(Options(true, 1.0, 0), 42), b(Options(true, 1.0, 0), 42);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(a.Pick(logits), b.Pick(logits));
}

TEST(RepetitionPenaltyTest, DividesPositiveAndMultipliesNegativeOnce) {
  std::vector<float> logits = {2.0f, -2.0f, 3.0f};
  const std::vector<int32_t> seen = {0, 1, 1, 7};
  ApplyRepetitionPenalty(logits, seen, 2.0);
  EXPECT_FLOAT_EQ(logits[0], 1.0f);
  EXPECT_FLOAT_EQ(logits[1], -4.0f);
  EXPECT_FLOAT_EQ(logits[2], 3.0f);
}

TEST(StopConditionsTest, EosThenLengthThenNewTokens) {
  StopConditions stop;
  stop.eos_ids = {2, 5};
  stop.max_length = 10;
  stop.max_new_tokens = 3;
  EXPECT_EQ(stop.Check(5, 4, 1), StopReason::kEos);
  EXPECT_EQ(stop.Check(7, 4, 1), StopReason::kNone);
  EXPECT_EQ(stop.Check(7, 10, 1), StopReason::kMaxLength);
  EXPECT_EQ(stop.Check(7, 6, 3), StopReason::kMaxNewTokens);
  stop.ignore_eos = true;
  EXPECT_EQ(stop.Check(5, 4, 1), StopReason::kNone);
  EXPECT_EQ(StopReasonName(StopReason::kMaxNewTokens), "max_new_tokens");
}

}  // namespace
}  // namespace modelkit::generate
