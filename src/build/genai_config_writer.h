// genai_config.json of a built bundle, in the shape onnxruntime-genai's model builder writes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "modelkit/build/model_spec.h"

namespace modelkit::build {

// The flat layout: one decoder `filename` with GroupQueryAttention, default tensor names, CPU session options,
// greedy search defaults with past_present_share_buffer true and max_length = context_length.
nlohmann::ordered_json FlatGenaiConfig(const ModelSpec& spec, int64_t context_length, const std::string& filename);

// The decoder-pipeline layout: stages embeddings (CPU) -> ctx (prompt only) / iter (token generation only), both on
// `ep` ("" = CPU) -> lm_head (CPU, is_lm_head); static KV of context_length, shared past/present buffers.
nlohmann::ordered_json PipelineGenaiConfig(const ModelSpec& spec, int64_t context_length, const std::string& ep);

}  // namespace modelkit::build
