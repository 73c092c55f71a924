// Bundles for the generation runtime's tests: tiny random models built with the builder, their reference greedy
// tokens from the independent reference decoder, and small config edits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/builder/bundle_builder.h"
#include "support/reference_decoder.h"

namespace modelkit::test {

// Options for a tiny Llama bundle (vocab 256, no tokenizer, untied lm_head so greedy continuations vary) at `out`.
builder::BuildOptions TinyGenerateOptions(const std::filesystem::path& out, builder::Layout layout,
                                        builder::Precision precision = builder::Precision::kFp32,
                                        int64_t context_length = 128);

// Builds the bundle and returns a reference decoder over the same (for int4: dequantised) weights.
ReferenceDecoder BuildWithReference(const builder::BuildOptions& options);

// The reference's greedy continuation of `prompt`: `count` tokens (argmax, first index on ties).
std::vector<int32_t> ReferenceGreedy(ReferenceDecoder reference, const std::vector<int32_t>& prompt, int count);

// Rewrites <bundle>/genai_config.json through `edit`.
void EditGenaiConfig(const std::filesystem::path& bundle, const std::function<void(nlohmann::ordered_json&)>& edit);

}  // namespace modelkit::test
