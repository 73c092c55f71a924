// Hands a graph's int4 MatMulNBits nodes to modelkit's own CPU kernel (int4_matmul_op.h), in memory at load time.
//
// A node is replaced only when the kernel computes exactly what ORT's MatMulNBits computes for it: 4-bit weights in
// blocks of 32 with fp32 scales and no zero points, group indices or bias, at accuracy_level 4 (int8 activations),
// its weights and scales constant initializers. The replacement keeps the node's inputs, output and attributes;
// only its op type and domain change. The bundle on disk is untouched, and the graph still runs in any runtime.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace modelkit::generate {

struct Int4MatMulRewrite {
  std::string model;    // the rewritten ModelProto
  size_t replaced = 0;  // MatMulNBits nodes now MatMulInt4 (at least one)
};

// `model` (a serialised ModelProto) with every qualifying node replaced; nullopt when none qualifies. Throws
// Error(kInvalidModel) when `model` is not a well-formed protobuf encoding.
std::optional<Int4MatMulRewrite> UseInt4MatMulKernel(std::string_view model);

}  // namespace modelkit::generate
