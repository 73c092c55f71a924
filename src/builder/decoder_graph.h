// The ONNX graph of a Hugging Face-style decoder (qwen3, llama) as onnxruntime-genai's CPU models look:
// Gather embeddings, SimplifiedLayerNormalization (RMSNorm, also for Qwen3's per-head q/k norms),
// GroupQueryAttention (com.microsoft) with rotary inside and past/present KV, SwiGLU MLP, final norm, lm_head.
// Linear layers are MatMul (fp32) or MatMulNBits (int4).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "modelkit/builder/bundle_builder.h"
#include "modelkit/builder/model_spec.h"
#include "onnx_writer.h"
#include "weight_source.h"

namespace modelkit::builder {

struct DecoderGraphOptions {
  Precision precision = Precision::kFp32;
  Precision lm_head_precision = Precision::kFp32;
  Precision embeddings_precision = Precision::kFp32;
  int64_t block_size = 32;
  bool int4_symmetric = true;
  int64_t int4_accuracy_level = 4;
  bool fuse_projections = true;          // q/k/v and gate/up as one linear layer each (see DecoderEmitter)
  int64_t context_length = 4096;         // rows of the rotary cos/sin caches
  OnnxType ids_type = OnnxType::kInt64;  // input_ids of the flat decoder and the embeddings stage
};

// The element type of activations, KV cache and logits: fp16 for Precision::kFp16, else fp32.
OnnxType ActivationType(const DecoderGraphOptions& options);

// Tensor names of the flat decoder (onnxruntime-genai's defaults).
inline constexpr const char* kPastKeyFormat = "past_key_values.%d.key";
inline constexpr const char* kPastValueFormat = "past_key_values.%d.value";
inline constexpr const char* kPresentKeyFormat = "present.%d.key";
inline constexpr const char* kPresentValueFormat = "present.%d.value";
std::string FormatLayerName(const char* format, int64_t layer);

// Names of the tensors passed between pipeline stages (not managed by the runtime).
inline constexpr const char* kEmbeddingsName = "/model/embed_tokens/output_0";
inline constexpr const char* kHiddenStatesName = "hidden_states";

// Counts weight reads across all files of a build and reports (done, total) to an optional callback.
class BuildProgress {
 public:
  BuildProgress(std::function<void(int64_t, int64_t)> callback, int64_t total);
  void Advance();

 private:
  std::function<void(int64_t, int64_t)> callback_;
  int64_t total_;
  int64_t done_ = 0;
};

// How many weight reads a build of `layout` makes (the progress total).
int64_t TensorReads(const ModelSpec& spec, Layout layout);

// The flat layout: `model_path` (+ `<file>.data`) holds the whole decoder: inputs input_ids [batch, seq] int64,
// attention_mask [batch, total] int64, past KV [batch, kv_heads, past, head_dim] fp32; outputs logits
// [batch, seq, vocab] fp32 and present KV. Returns the bytes written.
uint64_t WriteFlatDecoder(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path, BuildProgress& progress);

// Pipeline stages. Embeddings: input_ids -> kEmbeddingsName [batch, seq, hidden].
uint64_t WriteEmbeddingsStage(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                              const std::filesystem::path& model_path, BuildProgress& progress);
// The decoder layers and final norm, batch 1: kEmbeddingsName + attention_mask + past KV of a static
// context_length (a shared buffer updated in place) -> kHiddenStatesName + present KV. The sequence dimension is
// `fixed_sequence_length` (1 for the token-generation stage) or dynamic when 0 (prompt stage).
uint64_t WriteLayersStage(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path, int64_t fixed_sequence_length,
                          BuildProgress& progress);
// lm_head: kHiddenStatesName -> logits [batch, seq, vocab].
uint64_t WriteLmHeadStage(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path, BuildProgress& progress);

}  // namespace modelkit::builder
