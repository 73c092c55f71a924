// How text reports print durations: one unit per table (ns, µs, ms or s) chosen from the table's typical value, and
// every number with at least three significant digits, so a 3.8 µs model reads "3.81 µs", not "0.004 ms".
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace modelkit::report {

struct DurationUnit {
  std::string_view symbol;  // "ns", "µs", "ms", "s"
  double ns = 1;            // nanoseconds in one unit
};

// The largest unit in which `typical_ns` is at least 1 (ns for 0 and below).
DurationUnit UnitFor(double typical_ns);

// The unit for a table of these values: chosen from their median, ignoring zeros (ns when none is positive).
DurationUnit UnitForTable(std::span<const double> values_ns);

// `value` with at least `digits` significant digits and no exponent: 3.8123 -> "3.81", 0.012345 -> "0.0123",
// 1234.56 -> "1235", 0 -> "0".
std::string SignificantText(double value, int digits = 3);

// A JSON number of nanoseconds in `unit` with three significant digits, or "-" when it is null.
std::string DurationCell(const nlohmann::ordered_json& ns, DurationUnit unit);

}  // namespace modelkit::report
