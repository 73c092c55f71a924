// Hands a graph's matrix multiplies and attention to modelkit's own CPU kernels (modelkit_ops.h), in memory at load
// time.
//
// A node is replaced only when the kernel computes exactly what ORT computes for it, bit for bit:
// - int4 `MatMulNBits` (to `MatMulInt4`): 4-bit weights in blocks of 32 with fp32 scales and no zero points, group
//   indices or bias, at accuracy_level 4 (int8 activations), its weights and scales constant initializers;
// - fp32 `MatMul` (to `MatMulFp32`): B a constant 2-D float initializer;
// - fp32 `GroupQueryAttention` (to modelkit's `GroupQueryAttention`, which runs decode steps on its own kernel and
//   everything else on ORT's): separate query, key and value, past and present K/V, rotary embedding with constant
//   float cos/sin caches, not interleaved, and no attribute but num_heads, kv_num_heads, do_rotary,
//   rotary_interleaved and scale.
// The replacement keeps the node's inputs, output and attributes; only its op type and domain change. The bundle on
// disk is untouched, and the graph still runs in any runtime.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace modelkit::generate {

struct KernelRewrite {
  std::string model;    // the rewritten ModelProto
  size_t replaced = 0;  // nodes now on modelkit's kernel (at least one)
};

// `model` (a serialised ModelProto) with every qualifying node replaced; nullopt when none qualifies. Throw
// Error(kInvalidModel) when `model` is not a well-formed protobuf encoding.
std::optional<KernelRewrite> UseInt4MatMulKernel(std::string_view model);
std::optional<KernelRewrite> UseFp32MatMulKernel(std::string_view model);
std::optional<KernelRewrite> UseDecodeAttentionKernel(std::string_view model);

}  // namespace modelkit::generate
