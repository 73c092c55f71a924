// The decoder architecture a bundle is built for: dimensions, norms, rotary embedding and special token ids,
// whether they come from a checkpoint's config.json or from --random flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace modelkit::builder {

enum class Arch { kQwen3, kLlama };

// "qwen3" / "llama".
std::string ArchName(Arch arch);
// Accepts the names above (case-insensitive); nullopt otherwise.
std::optional<Arch> ParseArch(const std::string& name);

// Hugging Face rope_scaling: none, "linear" (frequencies / factor) or "llama3" (Llama 3.1+: low frequencies / factor,
// high kept, smooth in between).
struct RopeScaling {
  enum class Type { kNone, kLinear, kLlama3 } type = Type::kNone;
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  double original_max_position_embeddings = 8192;
};

struct ModelSpec {
  Arch arch = Arch::kQwen3;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 1e6;
  RopeScaling rope_scaling;
  int64_t max_position_embeddings = 0;  // 0: unknown
  bool tie_word_embeddings = false;
  std::optional<int64_t> bos_token_id;
  std::vector<int64_t> eos_token_ids;
  std::optional<int64_t> pad_token_id;
};

// Throws Error(code) naming `where` (e.g. "config.json" or "--heads") when a dimension is not positive or the
// heads do not group (num_heads % num_kv_heads), or head_dim is not a multiple of 16 (GroupQueryAttention).
void ValidateSpec(const ModelSpec& spec, const std::string& where, int code);

// Reads a Hugging Face config.json document (model_type qwen3/llama). Throws Error(kInvalidModel) naming `file`
// and the key for a missing or bad key or an unsupported model_type / hidden_act / rope_scaling.
ModelSpec SpecFromHfConfig(const nlohmann::json& config, const std::string& file);

// The rotary inverse frequencies [head_dim / 2]: theta^(-2i / head_dim), then rope_scaling.
std::vector<double> RopeInverseFrequencies(const ModelSpec& spec);

// The Hugging Face tensor names the decoder needs, with their [out, in] / [n] shapes, in graph order.
struct TensorRef {
  std::string name;
  std::vector<int64_t> shape;
};
std::vector<TensorRef> ExpectedTensors(const ModelSpec& spec);

// Name of a per-layer tensor: LayerTensor(3, "self_attn.q_proj.weight") = "model.layers.3.self_attn.q_proj.weight".
std::string LayerTensor(int64_t layer, const std::string& suffix);

}  // namespace modelkit::builder
