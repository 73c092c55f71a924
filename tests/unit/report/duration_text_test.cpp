#include "modelkit/report/duration_text.h"

#include <vector>

#include <gtest/gtest.h>

namespace modelkit::report {
namespace {

TEST(DurationText, UnitIsTheLargestInWhichTheValueIsAtLeastOne) {
  EXPECT_EQ(UnitFor(0).symbol, "ns");
  EXPECT_EQ(UnitFor(999).symbol, "ns");
  EXPECT_EQ(UnitFor(3800).symbol, "µs");
  EXPECT_EQ(UnitFor(999'999).symbol, "µs");
  EXPECT_EQ(UnitFor(1'000'000).symbol, "ms");
  EXPECT_EQ(UnitFor(2.5e9).symbol, "s");
  EXPECT_EQ(UnitFor(2.5e9).ns, 1e9);
}

TEST(DurationText, TableUnitFollowsTheMedianIgnoringZeros) {
  const std::vector<double> mostly_micro = {0, 0, 3800, 4100, 5200, 2.5e6};
  EXPECT_EQ(UnitForTable(mostly_micro).symbol, "µs");
  const std::vector<double> none = {0, 0};
  EXPECT_EQ(UnitForTable(none).symbol, "ns");
}

TEST(DurationText, ThreeSignificantDigitsWithoutExponent) {
  EXPECT_EQ(SignificantText(3.8123), "3.81");
  EXPECT_EQ(SignificantText(0.012345), "0.0123");
  EXPECT_EQ(SignificantText(42.06), "42.1");
  EXPECT_EQ(SignificantText(1234.56), "1235");
  EXPECT_EQ(SignificantText(0), "0");
  EXPECT_EQ(SignificantText(9.996), "10.0");
  EXPECT_EQ(SignificantText(-0.5), "-0.500");
  EXPECT_EQ(SignificantText(3.8123, 5), "3.8123");
}

TEST(DurationText, CellConvertsNanosecondsIntoTheUnit) {
  EXPECT_EQ(DurationCell(nlohmann::ordered_json(3812), UnitFor(3812)), "3.81");
  EXPECT_EQ(DurationCell(nlohmann::ordered_json(21), UnitFor(3812)), "0.0210");
  EXPECT_EQ(DurationCell(nlohmann::ordered_json(nullptr), UnitFor(1)), "-");
}

}  // namespace
}  // namespace modelkit::report
