// genai_config.json of a built bundle, in the shape onnxruntime-genai's model builder writes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "modelkit/builder/model_spec.h"

namespace modelkit::builder {

// The flat layout: one decoder `filename` with GroupQueryAttention, default tensor names, CPU session options,
// search defaults as onnxruntime-genai's builder writes them without a generation_config.json (greedy: do_sample
// false, top_k 50), past_present_share_buffer true and max_length = context_length.
nlohmann::ordered_json FlatGenaiConfig(const ModelSpec& spec, int64_t context_length, const std::string& filename);

// The windowed static layout's `sliding_window` (window > 0): prompt windows of `window` tokens, padding with
// pad_token_id before the prompt (alignment "right"), a sliding uint8 cache initialised to `pad_value`.
struct SlidingWindowConfig {
  int64_t window = 0;
  int pad_value = 0;
};

// The decoder-pipeline layout: stages embeddings (CPU) -> ctx (prompt only) / iter (token generation only), both on
// `ep` ("" = CPU) -> lm_head (CPU, is_lm_head). Without a window: static KV of context_length, shared past/present
// buffers. With one: position_ids fed to ctx/iter, `sliding_window` written as onnxruntime-genai reads it
// (alignment right, sliding KV and inputs), no shared buffers.
nlohmann::ordered_json PipelineGenaiConfig(const ModelSpec& spec, int64_t context_length, const std::string& ep,
                                           const SlidingWindowConfig& sliding = {});

// Copies the generation settings of a Hugging Face generation_config.json (`generation`, read from `file`) into
// the config's `search`, as onnxruntime-genai's model builder does: do_sample, temperature, top_k, top_p,
// repetition_penalty, length_penalty, diversity_penalty, no_repeat_ngram_size, num_beams, num_return_sequences.
// Keys the file lacks (or sets to null) keep the defaults. Throws Error (exit 3) naming the file and key for a value
// of the wrong type.
void ApplyGenerationConfig(nlohmann::ordered_json& config, const nlohmann::json& generation, const std::string& file);

// Sets bundle::kInt4CpuKernelEntry ("1": modelkit's kernel, "0": ORT's) in model.decoder's session_options and in
// every pipeline stage's.
void RecordInt4CpuKernel(nlohmann::ordered_json& config, bool modelkits_kernel);

}  // namespace modelkit::builder
