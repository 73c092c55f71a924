// A loaded genai bundle: the typed config, one ORT session per model or pipeline stage, and the tokenizer.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/device/ep_catalog.h"
#include "modelkit/generate/config.h"
#include "modelkit/generate/timings.h"
#include "modelkit/report/placement.h"
#include "modelkit/tokenizer/tokenizer.h"

namespace modelkit::generate {

struct LoadOptions {
  // The EP catalog provider names resolve against (plugin rows registered with the shared env already);
  // nullptr: the built-in catalog.
  const device::EpCatalog* catalog = nullptr;
  // Without a tokenizer the model runs on token ids only (tests with tokenizer-less random bundles).
  bool load_tokenizer = true;
  // When loading it: a bundle without tokenizer.json (one built with --vocab-size and no --tokenizer) loads without
  // one instead of failing, for runs given token ids. A tokenizer.json that is there but bad still fails.
  bool tokenizer_optional = false;
  // Prompt steps compute the logits of the last position only: a graph whose logits come from a MatMul(NBits) is
  // rewritten in memory so its lm_head reads the last hidden state alone (generation reads no other row). false
  // keeps the bundle's graph as it is.
  bool last_position_logits = true;
  // On a CPU with AVX-512 VNNI, a stage run by the CPU EP computes its int4 MatMulNBits nodes (blocks of 32, fp32
  // scales, no zero points, accuracy_level 4) with modelkit's own kernel, which streams the weights faster at batch 1
  // and computes ORT's values bit for bit (docs/performance.md). nullopt: unless the stage's session_options opt
  // out (bundle::kInt4CpuKernelEntry "0"); true or false: for every stage, whatever the bundle says.
  std::optional<bool> int4_cpu_kernel;
  // On a CPU with AVX-512, a stage run by the CPU EP computes its fp32 MatMul nodes with a constant [K, N] B with
  // modelkit's own kernel, which computes ORT's values bit for bit (docs/performance.md). false: ORT's kernel.
  bool fp32_cpu_kernel = true;
  // On a CPU with AVX-512, a stage run by the CPU EP computes the decode steps of its fp32 GroupQueryAttention nodes
  // (one new token, K/V buffers shared between past and present) with modelkit's own kernel, which computes ORT's
  // values bit for bit; other runs of those nodes (prompts) stay ORT's (docs/performance.md). false: ORT's kernel.
  bool attention_cpu_kernel = true;
};

// One session and what it declares.
struct LoadedStage {
  StageConfig config;  // the flat decoder is one stage named "decoder" listing every session input/output
  std::unique_ptr<Ort::Session> session;
  std::vector<std::string> session_inputs;
  std::vector<std::string> session_outputs;
  // Some input is consumed from memory that is not the CPU's (e.g. WebGPU): ORT copies an IoBinding's input to that
  // device when it is bound, so a runner binds this stage's inputs anew every run instead of refilling a bound buffer.
  bool binds_to_device = false;
  // Where ORT placed the session's nodes, against the EP the stage's providers ask for; nullopt when ORT cannot say.
  std::optional<report::SessionPlacement> placement;
  int intra_op_threads = 0;  // as set on the session (0: ORT's own choice)
  bool intra_op_spinning = true;
  bool intra_op_shared_pool = false;  // on the process's shared pool (ort::SharedEnv), with the other stages
  bool last_position_logits = false;  // the session runs the graph rewritten to make the last position's logits only
  size_t int4_matmul_nodes = 0;       // MatMulNBits nodes the session runs with modelkit's int4 kernel
  size_t fp32_matmul_nodes = 0;       // MatMul nodes the session runs with modelkit's fp32 kernel
  size_t attention_nodes = 0;         // GroupQueryAttention nodes whose decode steps run on modelkit's kernel
};

class Model {
 public:
  // Loads `bundle_dir`. Throws UsageError when the directory or genai_config.json is missing, Error(kInvalidModel)
  // for a bad config, a missing or unloadable model file, stage inputs/outputs that do not match the sessions, or a
  // missing/bad tokenizer (when load_tokenizer).
  static std::unique_ptr<Model> Load(const std::filesystem::path& bundle_dir, const LoadOptions& options = {});

  const GenaiConfig& config() const { return config_; }
  // nullptr when loaded without a tokenizer.
  const tokenizer::Tokenizer* tokenizer() const { return tokenizer_ ? &*tokenizer_ : nullptr; }
  const LoadTimings& load_timings() const { return load_timings_; }
  // What the user should hear about the bundle, one line each without "warning: " (e.g. "genai_config.json: unknown
  // key 'model.decoder.foo' (ignored)").
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<LoadedStage>& stages() const { return stages_; }
  // Element type of the past-key inputs, and their fixed sequence length (0 when dynamic).
  ONNXTensorElementDataType kv_type() const { return kv_type_; }
  int64_t fixed_kv_length() const { return fixed_kv_length_; }
  bool has_kv() const { return has_kv_; }
  // Bytes of the process's memory moved onto huge pages after the sessions were created (the weights, mostly): 0
  // where the kernel cannot.
  size_t huge_page_bytes() const { return huge_page_bytes_; }

 private:
  Model() = default;
  void LoadSessions(const device::EpCatalog& catalog, const LoadOptions& options);
  void CheckFlatInputs() const;
  void CheckPipelineWiring() const;
  void CheckLayerCount() const;
  void CheckWindowedKv(const Ort::Session& session, const StageConfig& stage, const std::string& where) const;
  void CheckKvShape(const std::vector<int64_t>& shape, const std::string& input, const std::string& where) const;

  GenaiConfig config_;
  std::vector<LoadedStage> stages_;
  std::optional<tokenizer::Tokenizer> tokenizer_;
  LoadTimings load_timings_;
  std::vector<std::string> warnings_;
  ONNXTensorElementDataType kv_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  int64_t fixed_kv_length_ = 0;
  bool has_kv_ = false;
  size_t huge_page_bytes_ = 0;
};

}  // namespace modelkit::generate
