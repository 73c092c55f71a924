// The compatibility info ORT stores in a compiled model's metadata for this EP, and its validation: what lets an
// application (or a compile cache) ask whether a compiled model still suits the installed simulated NPU.
#pragma once

#include <string>
#include <string_view>

namespace sim_npu {

// "<ep name>;version=<ep version>", e.g. "SimNpuExecutionProvider;version=1.0.0".
std::string CompatibilityInfo(std::string_view ep_name, std::string_view ep_version);

enum class Compatibility { kOptimal, kPreferRecompilation, kUnsupported };

// Optimal for the same EP name and version; prefer recompilation for the same EP at another version (its context
// blobs still load); unsupported for another EP or an unreadable string.
Compatibility CheckCompatibility(std::string_view info, std::string_view ep_name, std::string_view ep_version);

}  // namespace sim_npu
