#include "stage_rewrites.h"

#include "kernel_rewrites.h"
#include "last_position_logits.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"

namespace modelkit::generate {
namespace {

// Larger model files hold their weights inline: a copy of them in memory would cost more than a rewrite saves.
constexpr size_t kMaxModelBytes = size_t{64} << 20;

}  // namespace

std::optional<RewrittenStage> RewriteStageModel(const std::filesystem::path& path, const StageRewriteRequest& request) {
  if (!request.last_position_logits && !request.int4_matmul && !request.fp32_matmul && !request.decode_attention) {
    return std::nullopt;
  }
  try {
    RewrittenStage stage;
    stage.model = ReadTextFile(path, "model", kMaxModelBytes);
    bool changed = false;
    if (request.last_position_logits) {
      if (auto sliced = SliceLogitsToLastPosition(stage.model, *request.last_position_logits)) {
        stage.model = std::move(*sliced);
        stage.last_position_logits = changed = true;
      }
    }
    if (request.int4_matmul) {
      if (auto int4 = UseInt4MatMulKernel(stage.model)) {
        stage.model = std::move(int4->model);
        stage.int4_matmul_nodes = int4->replaced;
        changed = true;
      }
    }
    if (request.fp32_matmul) {
      if (auto fp32 = UseFp32MatMulKernel(stage.model)) {
        stage.model = std::move(fp32->model);
        stage.fp32_matmul_nodes = fp32->replaced;
        changed = true;
      }
    }
    if (request.decode_attention) {
      if (auto attention = UseDecodeAttentionKernel(stage.model)) {
        stage.model = std::move(attention->model);
        stage.attention_nodes = attention->replaced;
        changed = true;
      }
    }
    if (!changed) return std::nullopt;
    return stage;
  } catch (const Error&) {
    return std::nullopt;  // too large, unreadable or not protobuf: loading the file itself reports what is wrong
  }
}

}  // namespace modelkit::generate
