// Which nodes the simulated NPU claims. It runs claimed nodes in an inner CPU session rebuilt with the model editor
// API, so it can take any node that API can rebuild and whose values it can pass across a partition boundary.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>

#include "options.h"

namespace sim_npu {

inline constexpr const char* kMsDomain = "com.microsoft";

// True for an EPContext node (com.microsoft domain).
bool IsEpContextNode(Ort::ConstNode node);

// Returns why `node` is not claimed ("" when it is): op_allow / op_deny, TENSOR or GRAPH attributes (the model editor
// cannot create them: Constant with `value`, ConstantOfShape, If, Loop, Scan), outer-scope inputs, non-tensor
// inputs or outputs (sequences, maps, optionals cannot be outputs of a fused node), and, while compiling an EPContext
// model (options.context_enable), string tensors (EPContext nodes cannot carry them), and with options.static_shapes
// an input or output with a dynamic (symbolic or unknown) dimension.
std::string UnsupportedReason(Ort::ConstNode node, const SimNpuOptions& options);

}  // namespace sim_npu
