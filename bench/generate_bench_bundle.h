// The random-weight bundles the generation benchmarks run: "tiny" (fp32, 2 layers, hidden 64, vocab 256) and "0.6b"
// (Qwen3-0.6B's dimensions, int4 MatMulNBits at accuracy_level 4, fp32 embeddings and activations).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "modelkit/builder/bundle_builder.h"

namespace modelkit::bench {

// The options that build `shape` ("tiny" or "0.6b") into `output_dir` with `context_length` positions.
builder::BuildOptions GenerateBenchBundle(const std::string& shape, const std::filesystem::path& output_dir,
                                        int64_t context_length);

// Builds the bundle and sets model.decoder.session_options.intra_op_num_threads to `threads` in its
// genai_config.json, as a user would.
void BuildGenerateBenchBundle(const builder::BuildOptions& options, int threads);

}  // namespace modelkit::bench
