// The graph rewrites applied to a stage's model in memory when it is loaded (the bundle on disk is untouched):
// prompt logits for the last position only (last_position_logits.h) and modelkit's int4, fp32 and attention CPU
// kernels (kernel_rewrites.h). The model file is read once and each asked rewrite applied in turn.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace modelkit::generate {

struct StageRewriteRequest {
  std::optional<std::string> last_position_logits;  // the logits output to slice, when asked
  bool int4_matmul = false;                         // hand qualifying MatMulNBits nodes to modelkit's kernel
  bool fp32_matmul = false;                         // hand qualifying MatMul nodes to modelkit's kernel
  bool decode_attention = false;                    // hand qualifying GroupQueryAttention nodes to modelkit's
};

struct RewrittenStage {
  std::string model;  // the rewritten ModelProto
  bool last_position_logits = false;
  size_t int4_matmul_nodes = 0;
  size_t fp32_matmul_nodes = 0;
  size_t attention_nodes = 0;
};

// The rewrites of `request` that apply to the model file at `path`; nullopt when none does, or when the file is too
// large to hold in memory twice (its weights inline rather than external data, as a bundle's are), cannot be read
// or is not protobuf (loading the file itself then reports the problem).
std::optional<RewrittenStage> RewriteStageModel(const std::filesystem::path& path, const StageRewriteRequest& request);

}  // namespace modelkit::generate
