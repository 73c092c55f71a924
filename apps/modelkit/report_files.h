// Saved perf reports read back for `compare` and `report`.
#pragma once

#include <string>

#include "modelkit/report/compare.h"

namespace modelkit::app {

// The JSON report at `path`, named by the path as given. Throws UsageError when it is missing, too large (256 MiB:
// far above a million iterations' raw samples) or not JSON.
report::NamedReport ReadReportFile(const std::string& path);

}  // namespace modelkit::app
