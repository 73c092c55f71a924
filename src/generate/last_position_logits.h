// Prompt logits for the last position only.
//
// A decoder's graph computes logits for every position it is fed: for a prompt of n tokens, its lm_head multiplies
// n hidden states by the vocabulary matrix and writes n x vocab floats, although generation reads the last row
// only (a 512-token prompt of a 0.6B model with a 151K vocabulary: ~26% of the prompt's multiply-adds and a 311 MB
// output). This rewrites the graph, in memory at load time, so that the lm_head reads the last position's hidden
// state alone. The last row is the same computation on the same inputs; the bundle on disk is untouched.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace modelkit::generate {

// `model` (a serialised ModelProto) with a Slice of the last position inserted before the matmul that makes the
// graph output `logits`, and that output declared [batch, 1, vocab]. nullopt when the graph is not one this
// recognises, and then nothing is changed: `logits` must come from a MatMul or MatMulNBits, through Identity or
// Cast nodes only, each intermediate read by nothing else; it must be declared 3-D with a second dimension other
// than 1; and the model must import ai.onnx opset 13 or later. Throws Error(kInvalidModel) when `model` is not a
// well-formed protobuf encoding.
std::optional<std::string> SliceLogitsToLastPosition(std::string_view model, const std::string& logits);

}  // namespace modelkit::generate
