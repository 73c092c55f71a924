#include "flag_checks.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace modelkit::app {
namespace {

// "1e+06" style numbers are hard to read in a range: print integers as integers.
std::string Number(double value) {
  if (std::fabs(value) < 1e15 && value == std::floor(value)) return std::to_string(static_cast<int64_t>(value));
  return std::to_string(value);
}

}  // namespace

CLI::Validator FiniteNumber(double min, double max, bool min_exclusive) {
  const std::string range = (min_exclusive ? "(" : "[") + Number(min) + ", " + Number(max) + "]";
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
          return "'" + text + "' is not a finite number";
        }
        if (value < min || value > max || (min_exclusive && value == min)) {
          return "'" + text + "' is outside " + range;
        }
        return "";
      },
      "NUMBER in " + range);
}

CLI::Validator NonEmpty() {
  return CLI::Validator([](const std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; },
                        "");
}

CLI::Validator UnsignedInteger(uint64_t max) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        const unsigned long long value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || value > max) {
          return "'" + text + "' is not an integer in [0, " + std::to_string(max) + "]";
        }
        return "";
      },
      "UINT");
}

}  // namespace modelkit::app
