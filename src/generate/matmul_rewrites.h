// Hands a graph's matrix multiplies to modelkit's own CPU kernels (modelkit_ops.h), in memory at load time.
//
// A node is replaced only when the kernel computes exactly what ORT computes for it, bit for bit:
// - int4 `MatMulNBits` (to `MatMulInt4`): 4-bit weights in blocks of 32 with fp32 scales and no zero points, group
//   indices or bias, at accuracy_level 4 (int8 activations), its weights and scales constant initializers;
// - fp32 `MatMul` (to `MatMulFp32`): B a constant 2-D float initializer.
// The replacement keeps the node's inputs, output and attributes; only its op type and domain change. The bundle on
// disk is untouched, and the graph still runs in any runtime.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace modelkit::generate {

struct MatMulRewrite {
  std::string model;    // the rewritten ModelProto
  size_t replaced = 0;  // nodes now on modelkit's kernel (at least one)
};

// `model` (a serialised ModelProto) with every qualifying node replaced; nullopt when none qualifies. Throw
// Error(kInvalidModel) when `model` is not a well-formed protobuf encoding.
std::optional<MatMulRewrite> UseInt4MatMulKernel(std::string_view model);
std::optional<MatMulRewrite> UseFp32MatMulKernel(std::string_view model);

}  // namespace modelkit::generate
