// An independent reference forward pass of the decoders `modelkit build` writes (Qwen3 and Llama), in plain C++
// with double accumulation and no ONNX Runtime: the oracle the built bundles' logits are checked against.
// Written from the Hugging Face modelling code (RMSNorm, rotate-half RoPE, grouped causal attention, SwiGLU).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace modelkit::test {

struct ReferenceConfig {
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 1e6;
  // rope_scaling as in transformers' _compute_{linear,llama3}_parameters: "default", "linear" or "llama3".
  std::string rope_type = "default";
  double rope_factor = 1.0;
  double rope_low_freq_factor = 1.0;
  double rope_high_freq_factor = 4.0;
  double rope_original_max_positions = 8192;
  bool qk_norm = false;  // Qwen3
  bool tie_word_embeddings = false;
  // A uint8 KV cache (the windowed layout's): each cached key / value element goes through QuantizeLinear and
  // DequantizeLinear with its layer's scale and zero point 128, as ONNX defines them (round half to even, saturate).
  // Empty: the cache holds exact values.
  std::vector<double> kv_key_scales;
  std::vector<double> kv_value_scales;
};

// Weights by Hugging Face name, row-major as in the checkpoint ([out, in] for linear layers).
using ReferenceWeights = std::map<std::string, std::vector<float>>;

class ReferenceDecoder {
 public:
  ReferenceDecoder(ReferenceConfig config, ReferenceWeights weights);

  // Feeds one token at the next position; returns its logits [vocab].
  std::vector<float> Step(int64_t token);

  int64_t position() const { return position_; }

 private:
  const std::vector<float>& W(const std::string& name) const;
  std::vector<double> RmsNorm(const std::vector<double>& x, const std::vector<float>& weight) const;
  // y = W x for W [n, k].
  static std::vector<double> MatVec(const std::vector<float>& w, const std::vector<double>& x, int64_t n);
  void Rope(double* vec, int64_t position) const;

  ReferenceConfig config_;
  std::vector<double> inv_freq_;
  ReferenceWeights weights_;
  int64_t position_ = 0;
  // Per layer: keys and values of every past position, [position][kv_heads * head_dim].
  std::vector<std::vector<std::vector<double>>> keys_;
  std::vector<std::vector<std::vector<double>>> values_;
};

}  // namespace modelkit::test
