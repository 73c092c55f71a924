// Resident memory of this process, read from /proc.
#pragma once

#include <optional>

namespace modelkit::perf {

// Current resident set size in MiB (VmRSS); nullopt when /proc is unreadable.
std::optional<double> CurrentRssMb();
// Peak resident set size so far in MiB (VmHWM); nullopt when unreadable.
std::optional<double> PeakRssMb();

}  // namespace modelkit::perf
