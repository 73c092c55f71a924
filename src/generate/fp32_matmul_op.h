// The ONNX Runtime custom op that runs fp32_matmul_kernel: `MatMulFp32` in domain `com.modelkit` (modelkit_ops.h),
// on the CPU EP.
//
// Inputs are those of the `MatMul` node it replaces (kernel_rewrites.h): A (float, [..., K]) and B (float [K, N], a
// constant initializer). Output Y (float, [..., N]). The weights are repacked once when the session creates the
// kernel; each run splits the output columns (and, for many rows, the rows) over the session's intra-op threads.
#pragma once

#include <onnxruntime_cxx_api.h>

namespace modelkit::generate {

inline constexpr const char* kFp32MatMulOpType = "MatMulFp32";

// The op's definition, for the domain of modelkit's ops (modelkit_ops.h).
const OrtCustomOp* Fp32MatMulOp();

}  // namespace modelkit::generate
