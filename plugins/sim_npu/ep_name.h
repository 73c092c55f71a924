// How the registration name a library is registered under becomes the EP name it offers.
#pragma once

#include <string>
#include <string_view>

namespace sim_npu {

// "SimNpu.virtual" -> "SimNpuExecutionProvider", "SimNpu2" -> "SimNpu2ExecutionProvider",
// "FooExecutionProvider.virtual" -> "FooExecutionProvider": a trailing ".virtual" is removed, then
// "ExecutionProvider" is appended unless the name already ends with it.
std::string EpNameFromRegistration(std::string_view registration_name);

}  // namespace sim_npu
