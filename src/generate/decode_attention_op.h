// The ONNX Runtime custom op that runs decode_attention_kernel: `GroupQueryAttention` in domain `com.modelkit`
// (modelkit_ops.h), on the CPU EP.
//
// Inputs, outputs and attributes are those of the com.microsoft `GroupQueryAttention` node it replaces
// (kernel_rewrites.h): query, key, value, past_key, past_value, seqlens_k, total_sequence_length, cos_cache,
// sin_cache; output, present_key, present_value; num_heads, kv_num_heads, do_rotary, rotary_interleaved (0), scale.
// A decode step (batch 1, one new token, no padding, present K/V in the past K/V's buffers) runs on modelkit's kernel,
// one KV head per work item on the session's intra-op threads. Anything else (a prompt, a growing KV cache) runs
// ORT's own GroupQueryAttention kernel, created with the node's attributes and invoked on the same inputs and
// outputs, so the node computes what ORT computes in every case.
#pragma once

#include <onnxruntime_cxx_api.h>

namespace modelkit::generate {

inline constexpr const char* kDecodeAttentionOpType = "GroupQueryAttention";

// The op's definition, for the domain of modelkit's ops (modelkit_ops.h).
const OrtCustomOp* DecodeAttentionOp();

}  // namespace modelkit::generate
