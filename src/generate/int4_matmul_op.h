// The ONNX Runtime custom op that runs int4_matmul_kernel: `MatMulInt4` in domain `com.modelkit` (modelkit_ops.h),
// on the CPU EP.
//
// Inputs and attributes are those of the `MatMulNBits` node it replaces (kernel_rewrites.h): A (float, [..., K]),
// B (uint8 [N, K/32, 16], a constant initializer), scales (float [N * K/32] or [N, K/32], a constant initializer);
// attributes K and N. Output Y (float, [..., N]). The weights are repacked once when the session creates the
// kernel; each run quantises A's rows and splits the output columns (and, for many rows, the rows) over the
// session's intra-op threads.
#pragma once

#include <onnxruntime_cxx_api.h>

namespace modelkit::generate {

inline constexpr const char* kInt4MatMulOpType = "MatMulInt4";

// The op's definition, for the domain of modelkit's ops (modelkit_ops.h).
const OrtCustomOp* Int4MatMulOp();

}  // namespace modelkit::generate
