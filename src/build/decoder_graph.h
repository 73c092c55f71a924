// The ONNX graph of a Hugging Face-style decoder (qwen3, llama) as onnxruntime-genai's CPU models look:
// Gather embeddings, SimplifiedLayerNormalization (RMSNorm, also for Qwen3's per-head q/k norms),
// GroupQueryAttention (com.microsoft) with rotary inside and past/present KV, SwiGLU MLP, final norm, lm_head.
// Linear layers are MatMul (fp32) or MatMulNBits (int4).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "modelkit/build/bundle_builder.h"
#include "modelkit/build/model_spec.h"
#include "modelkit/build/weight_source.h"

namespace modelkit::build {

struct DecoderGraphOptions {
  Precision precision = Precision::kFp32;
  Precision lm_head_precision = Precision::kFp32;
  int64_t block_size = 32;
  bool int4_symmetric = true;
  int64_t int4_accuracy_level = 4;
  int64_t context_length = 4096;  // rows of the rotary cos/sin caches
};

// Tensor names of the flat decoder (onnxruntime-genai's defaults).
inline constexpr const char* kPastKeyFormat = "past_key_values.%d.key";
inline constexpr const char* kPastValueFormat = "past_key_values.%d.value";
inline constexpr const char* kPresentKeyFormat = "present.%d.key";
inline constexpr const char* kPresentValueFormat = "present.%d.value";
std::string FormatLayerName(const char* format, int64_t layer);

// Writes `model_path` (+ `<file>.data`) for the whole decoder: inputs input_ids [batch, seq] int64,
// attention_mask [batch, total] int64, past KV [batch, kv_heads, past, head_dim] fp32; outputs logits
// [batch, seq, vocab] fp32 and present KV. Reads each weight from `weights` once, calling `progress` after each
// (done, total). Returns the bytes written.
uint64_t WriteFlatDecoder(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path,
                          const std::function<void(int64_t, int64_t)>& progress);

}  // namespace modelkit::build
