#include "modelkit/report/significance.h"

#include <statistics.h>  // ALGLIB

#include <algorithm>

namespace modelkit::report {
namespace {

// ALGLIB's one-tailed approximation covers [0.0001, 0.25]; the two-tailed p it gives is twice that, clamped.
constexpr double kAlglibLowest = 0.0002;
constexpr double kAlglibHighest = 0.5;

alglib::real_1d_array ToAlglib(std::span<const double> samples) {
  alglib::real_1d_array array;
  array.setcontent(static_cast<alglib::ae_int_t>(samples.size()), samples.data());
  return array;
}

}  // namespace

UTestResult MannWhitneyU(std::span<const double> a, std::span<const double> b) {
  UTestResult result;
  if (a.size() < kMinSamplesForUTest || b.size() < kMinSamplesForUTest) return result;
  // No spread at all (e.g. a stage that never ran on either side): nothing differs.
  const auto [low_a, high_a] = std::minmax_element(a.begin(), a.end());
  const auto [low_b, high_b] = std::minmax_element(b.begin(), b.end());
  if (*low_a == *high_a && *low_b == *high_b && *low_a == *low_b) {
    result.p_value = 1.0;
    result.at_upper_bound = true;
    return result;
  }
  double both_tails = 1;
  double left_tail = 1;
  double right_tail = 1;
  alglib::mannwhitneyutest(ToAlglib(a), static_cast<alglib::ae_int_t>(a.size()), ToAlglib(b),
                           static_cast<alglib::ae_int_t>(b.size()), both_tails, left_tail, right_tail);
  result.p_value = both_tails;
  result.at_upper_bound = both_tails >= kAlglibHighest;
  result.at_lower_bound = both_tails <= kAlglibLowest;
  return result;
}

}  // namespace modelkit::report
