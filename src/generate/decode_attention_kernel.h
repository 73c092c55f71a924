// One decode step of GroupQueryAttention (one new token, batch 1, fp32, K/V caches shared between past and present)
// on x86-64 CPUs with AVX-512, written for batch-1 generation.
//
// It computes what ONNX Runtime's CPU GroupQueryAttention computes for such a step, bit for bit, so that a bundle's
// tokens are exactly those it generates on ORT's kernel. ORT (1.30, with MLAS's AVX-512 kernels) computes:
// - rotary embedding of the new query and key (half-split, not interleaved): for i < H/2, with c and s the cos and
//   sin cache rows of the position, x'[i] = fma(x[i], c, -(x[i+H/2] * s)) and x'[i+H/2] = fma(x[i], s, x[i+H/2] * c);
// - the rotated key and the value written to the caches at the position;
// - each query head's score for positions 0..position: eight running sums, sum l over the head's elements l, l + 8,
//   l + 16, ... in order (each product rounded, then added), reduced as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) +
//   (s6 + s7)), then multiplied by `scale`;
// - the exponentials: the scores' maximum, MLAS's exponential of (score - maximum) (its polynomial and rounding),
//   summed per lane of 16 in order and the lanes reduced in MLAS's fixed order;
// - each output value: the sum over positions, from zero, one position after another, of exponential times value
//   (each product rounded, then added), multiplied at the end by 1 / (sum of the exponentials).
// The kernel's source is compiled without contracting a multiply and an add into one fused operation (CMakeLists).
//
// Why: ORT runs these loops for one query head at a time in 128-bit registers; here they run in 256- and 512-bit
// ones, and the KV head's cache is read by the query heads that share it one after the other, while it is in cache.
#pragma once

#include <cstddef>

namespace modelkit::generate {

// The widest head the kernel takes: the widest its bit-for-bit tests against ORT cover.
inline constexpr size_t kDecodeAttentionMaxHeadSize = 128;

// Whether this CPU runs the kernel (AVX-512 F and VL).
bool DecodeAttentionSupported();

struct DecodeAttentionShape {
  size_t num_heads = 0;     // query heads
  size_t kv_num_heads = 0;  // key/value heads; num_heads is a multiple of it
  size_t head_size = 0;     // H: a multiple of 16, at most kDecodeAttentionMaxHeadSize
  size_t cache_length = 0;  // positions each head's K/V cache holds
  float scale = 0.0f;       // applied to the scores before the softmax
  bool rotary = true;       // rotate the query and key (cos/sin rows of H/2 values)
};

// Whether the kernel computes `shape` exactly (head size and head counts as above).
bool DecodeAttentionShapeSupported(const DecodeAttentionShape& shape);

// The inputs and outputs of one step. `query` [num_heads, H], `key` and `value` [kv_num_heads, H] (the new token's);
// `cos` and `sin` the caches' rows for `position` (H/2 each; unused without rotary); `key_cache` and `value_cache`
// [kv_num_heads, cache_length, H], valid for positions below `position`; `output` [num_heads, H].
struct DecodeAttentionStep {
  const float* query = nullptr;
  const float* key = nullptr;
  const float* value = nullptr;
  const float* cos = nullptr;
  const float* sin = nullptr;
  float* key_cache = nullptr;
  float* value_cache = nullptr;
  float* output = nullptr;
  size_t position = 0;  // of the new token: < cache_length
};

// Computes KV head `kv_head`'s part of `step`: writes its new key (rotated) and value into the caches at the position
// and the output of the query heads that share it. Parts for different KV heads touch disjoint memory and may run at
// once on different threads.
void RunDecodeAttentionHead(const DecodeAttentionShape& shape, const DecodeAttentionStep& step, size_t kv_head);

}  // namespace modelkit::generate
