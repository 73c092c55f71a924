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

}  // namespace modelkit::build
