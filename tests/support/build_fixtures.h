// Tiny models for the builder tests: specs, their random weights as reference-decoder inputs, and a comparison of a
// built flat bundle against the reference decoder over a prompt and several decode steps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <vector>

#include "builder/weight_source.h"
#include "modelkit/builder/model_spec.h"
#include "support/reference_decoder.h"

namespace modelkit::builder {
// Test output names the architecture instead of printing its bytes.
inline void PrintTo(Arch arch, std::ostream* out) { *out << ArchName(arch); }
}  // namespace modelkit::builder

namespace modelkit::test {

// A few-MB model of `arch`: 2 layers, hidden 64, 4 heads over 2 KV heads, vocab 256. Qwen3 gets head_dim 32
// (not hidden / heads) and tied embeddings, as Qwen3 checkpoints have; Llama untied lm_head.
builder::ModelSpec TinySpec(builder::Arch arch);

ReferenceConfig ReferenceConfigFor(const builder::ModelSpec& spec);

// Every tensor the spec needs, read from `source` and passed through `transform` (name, values) when given.
ReferenceWeights ReferenceWeightsFrom(
    const builder::ModelSpec& spec, const builder::WeightSource& source,
    const std::function<void(const std::string&, std::vector<float>&)>& transform = {});

struct LogitComparison {
  double max_abs_diff = 0;
  double max_abs_reference = 0;  // largest reference logit magnitude: the scale max_abs_diff is judged against
  int positions = 0;
  bool same_argmax = true;
};

// Runs `prompt` then `decode_steps` greedy tokens (chosen by the reference) through the bundle's decoder (growing
// KV, or a shared buffer of `shared_buffer_length` > 0) and the reference; compares logits at every position.
LogitComparison CompareWithReference(const std::filesystem::path& bundle, ReferenceDecoder& reference,
                                     const std::vector<int64_t>& prompt, int decode_steps,
                                     int64_t shared_buffer_length = 0);

// Feeds a chunk of tokens to a bundle runner and returns logits [chunk, vocab].
using ChunkRunner = std::function<std::vector<float>(const std::vector<int64_t>&)>;

// The same comparison for any runner (e.g. a PipelineRunner).
LogitComparison CompareRunWithReference(const ChunkRunner& run, int64_t vocab, ReferenceDecoder& reference,
                                        const std::vector<int64_t>& prompt, int decode_steps);

}  // namespace modelkit::test
