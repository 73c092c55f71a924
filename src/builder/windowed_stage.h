// The static-shape decoder stage of the windowed NPU layout (onnxruntime-genai's `sliding_window`): every dimension
// fixed, attention written as plain operators an NPU compiler accepts (MatMul, Softmax, masking by Add; no
// GroupQueryAttention), rotary from cos/sin tables gathered by position_ids, and a KV cache in onnxruntime-genai's
// windowed layout: past keys [kv_heads, 1, head_dim, context_length - window], past values [kv_heads, 1,
// context_length - window, head_dim], presents of the window only ([kv_heads, 1, head_dim, window] and
// [kv_heads, 1, window, head_dim]). The runtime slides the presents into the pasts after each run.
//
// The attention_mask [1, context_length] lines up with the keys the stage attends over: the past's positions, then
// the window's. A window position attends to every past position whose mask is 1 and to the window positions up to
// its own whose mask is 1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "decoder_graph.h"

namespace modelkit::builder {

// How the KV cache is stored: uint8 with a fixed scale per layer and tensor and zero point kKvZeroPoint
// (QuantizeLinear on the presents, DequantizeLinear on what attention reads, both inside the graph), or as
// activations (fp32) for checking the layout without quantisation error.
struct WindowedKv {
  bool quantized = true;
  std::vector<float> key_scales;    // per layer (quantized only)
  std::vector<float> value_scales;  // per layer (quantized only)
};
inline constexpr uint8_t kKvZeroPoint = 128;

// Per-layer KV scales estimated from the weights, before any run: each key/value channel is a weighted sum of
// RMS-normalised inputs (unit variance per element), so its standard deviation follows from the projection row and
// the norm weights (for Qwen3 keys, from the per-head key norm); rotary mixes channel pairs. A scale maps 4 standard
// deviations of the widest channel to the uint8 range around the zero point.
WindowedKv EstimateKvScales(const ModelSpec& spec, const WeightSource& weights);

// The layers and final norm for `window` positions per run (the prompt stage: the window size; the token-generation
// stage: 1): kEmbeddingsName [1, window, hidden] + attention_mask [1, context_length] int32 + position_ids [1, window]
// int32 + past KV -> kHiddenStatesName [1, window, hidden] + present KV. fp32 or int4 weights. Returns the bytes
// written.
uint64_t WriteWindowedLayersStage(const ModelSpec& spec, const WeightSource& weights,
                                  const DecoderGraphOptions& options, const WindowedKv& kv, int64_t window,
                                  const std::filesystem::path& model_path, BuildProgress& progress);

}  // namespace modelkit::builder
