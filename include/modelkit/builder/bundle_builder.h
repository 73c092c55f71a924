// `modelkit build`: writes a genai bundle (genai_config.json, ONNX decoder with .onnx.data, tokenizer files) from
// a Hugging Face checkpoint directory or from random weights.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "modelkit/builder/model_spec.h"

namespace modelkit::builder {

enum class Layout { kFlat, kPipeline };
// kFp16: fp16 weights, activations, KV cache and logits. kInt4: MatMulNBits weights, fp32 activations.
enum class Precision { kFp32, kFp16, kInt4 };

struct BuildOptions {
  std::filesystem::path output_dir;
  bool overwrite = false;
  // Exactly one of: a checkpoint directory, or random weights for `random_spec` with `seed`.
  std::optional<std::filesystem::path> checkpoint_dir;
  bool random = false;
  ModelSpec random_spec;
  uint64_t seed = 0;
  // Tokenizer files to copy (default: those in the checkpoint directory). With random weights, the vocabulary
  // size follows the tokenizer when random_spec.vocab_size is 0.
  std::optional<std::filesystem::path> tokenizer_dir;
  Layout layout = Layout::kFlat;
  Precision precision = Precision::kFp32;
  std::optional<Precision> lm_head_precision;  // default: `precision`; kInt4 or unquantised (the activation type)
  // int4 embeddings use GatherBlockQuantized and need hidden_size % block_size == 0.
  Precision embeddings_precision = Precision::kFp32;
  int64_t block_size = 32;
  bool int4_symmetric = true;
  int64_t int4_accuracy_level = 4;  // MatMulNBits accuracy_level: 0 = fp32 math, 4 = int8 activations (fast)
  // Records in genai_config.json (bundle::kInt4CpuKernelEntry in every session_options) which kernel modelkit
  // computes the int4 MatMulNBits nodes with on the CPU: true = its own, false = ORT's. nullopt records nothing
  // (modelkit then runs its own). Needs int4 weights when set.
  std::optional<bool> int4_cpu_kernel;
  // q/k/v and gate/up projections as one MatMul(NBits) + Split each: fewer, larger kernels, the same results.
  bool fuse_projections = true;
  std::optional<int64_t> context_length;  // default: max_position_embeddings, or 4096 for random weights
  std::string ep;                         // pipeline layout: provider for ctx/iter stages ("" = CPU)
  // Pipeline layout: > 0 makes the static NPU layout (onnxruntime-genai's `sliding_window`): the prompt runs in
  // windows of this many tokens through a ctx stage of fixed shape [1, window], tokens through an iter stage of
  // [1, 1], over a windowed KV cache stored as uint8 (or fp32 with float_kv, to check the layout without
  // quantisation error). Needs context_length >= 2 * window; fp32 or int4 weights.
  int64_t window = 0;
  bool float_kv = false;
  // Called after each written tensor (done, total); may be empty.
  std::function<void(int64_t, int64_t)> progress;
};

struct BuildResult {
  ModelSpec spec;
  int64_t context_length = 0;
  uint64_t bytes_written = 0;
};

// Builds the bundle into a temporary sibling of output_dir and renames it into place at the end, so no
// half-written bundle is ever visible. Throws UsageError for a non-empty output_dir without `overwrite`, bad
// options or a missing input directory; Error(kInvalidModel) for a bad checkpoint or tokenizer.
BuildResult BuildBundle(const BuildOptions& options);

}  // namespace modelkit::builder
