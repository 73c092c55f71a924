#include "modelkit/report/duration_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

namespace modelkit::report {

DurationUnit UnitFor(double typical_ns) {
  static constexpr std::array<DurationUnit, 4> kUnits = {DurationUnit{"s", 1e9}, DurationUnit{"ms", 1e6},
                                                         DurationUnit{"µs", 1e3}, DurationUnit{"ns", 1}};
  for (const DurationUnit& unit : kUnits) {
    if (typical_ns >= unit.ns) return unit;
  }
  return kUnits.back();
}

DurationUnit UnitForTable(std::span<const double> values_ns) {
  std::vector<double> positive;
  for (double value : values_ns) {
    if (value > 0) positive.push_back(value);
  }
  if (positive.empty()) return UnitFor(0);
  std::nth_element(positive.begin(), positive.begin() + static_cast<std::ptrdiff_t>(positive.size() / 2),
                   positive.end());
  return UnitFor(positive[positive.size() / 2]);
}

std::string SignificantText(double value, int digits) {
  int decimals = 0;
  if (value != 0 && std::isfinite(value)) {
    const int leading = static_cast<int>(std::floor(std::log10(std::fabs(value))));  // 3.8 -> 0, 0.012 -> -2
    decimals = std::max(0, digits - 1 - leading);
    // Rounding can carry into a new leading digit (9.996 -> 10.0): one decimal fewer keeps the digit count.
    const double scale = std::pow(10.0, decimals);
    if (decimals > 0 && std::fabs(std::round(value * scale) / scale) >= std::pow(10.0, leading + 1)) --decimals;
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(decimals) << value;
  return out.str();
}

std::string DurationCell(const nlohmann::ordered_json& ns, DurationUnit unit) {
  if (ns.is_null()) return "-";
  return SignificantText(ns.get<double>() / unit.ns);
}

}  // namespace modelkit::report
