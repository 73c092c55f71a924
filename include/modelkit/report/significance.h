// Whether two sets of samples differ by more than noise: the two-sided Mann-Whitney U test (as google/benchmark's
// compare.py uses), computed by ALGLIB. Pure: samples in, p-value out.
#pragma once

#include <optional>
#include <span>

namespace modelkit::report {

// Below this many samples on either side the test says nothing.
inline constexpr size_t kMinSamplesForUTest = 5;

struct UTestResult {
  // Two-sided p-value; nullopt when either side has fewer than kMinSamplesForUTest samples. ALGLIB's approximation
  // is within about 0.01 of the exact value inside [0.0002, 0.5] and clamps to those bounds outside it.
  std::optional<double> p_value;
  bool at_upper_bound = false;  // p_value is 0.5 (or 1 for identical constant samples): the true value is at least that
  bool at_lower_bound = false;  // p_value is 0.0002: the true value is 0.0002 or less
};

UTestResult MannWhitneyU(std::span<const double> a, std::span<const double> b);

}  // namespace modelkit::report
