#include "support/reference_decoder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace modelkit::test {
namespace {

std::string Layer(int64_t layer, const std::string& suffix) {
  return "model.layers." + std::to_string(layer) + "." + suffix;
}

}  // namespace

ReferenceDecoder::ReferenceDecoder(ReferenceConfig config, ReferenceWeights weights)
    : config_(config),
      weights_(std::move(weights)),
      keys_(static_cast<size_t>(config.num_layers)),
      values_(static_cast<size_t>(config.num_layers)) {
  const double pi = std::acos(-1.0);
  for (int64_t i = 0; i < config.head_dim; i += 2) {
    const double base =
        1.0 / std::pow(config.rope_theta, static_cast<double>(i) / static_cast<double>(config.head_dim));
    double f = base;
    if (config.rope_type == "linear") f = base / config.rope_factor;
    if (config.rope_type == "llama3") {
      const double wavelen = 2 * pi / base;
      const double low_freq_wavelen = config.rope_original_max_positions / config.rope_low_freq_factor;
      const double high_freq_wavelen = config.rope_original_max_positions / config.rope_high_freq_factor;
      const double scaled = wavelen > low_freq_wavelen ? base / config.rope_factor : base;
      const double smooth = (config.rope_original_max_positions / wavelen - config.rope_low_freq_factor) /
                            (config.rope_high_freq_factor - config.rope_low_freq_factor);
      const bool medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
      f = medium ? (1 - smooth) * scaled / config.rope_factor + smooth * scaled : scaled;
    }
    inv_freq_.push_back(f);
  }
}

const std::vector<float>& ReferenceDecoder::W(const std::string& name) const {
  const auto it = weights_.find(name);
  if (it == weights_.end()) throw std::runtime_error("reference decoder: no weight " + name);
  return it->second;
}

std::vector<double> ReferenceDecoder::RmsNorm(const std::vector<double>& x, const std::vector<float>& weight) const {
  double sum = 0;
  for (const double v : x) sum += v * v;
  const double inv = 1.0 / std::sqrt(sum / static_cast<double>(x.size()) + config_.rms_norm_eps);
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * weight[i];
  return y;
}

std::vector<double> ReferenceDecoder::MatVec(const std::vector<float>& w, const std::vector<double>& x, int64_t n) {
  const size_t k = x.size();
  std::vector<double> y(static_cast<size_t>(n));
  for (size_t r = 0; r < y.size(); ++r) {
    double sum = 0;
    const float* row = w.data() + r * k;
    for (size_t c = 0; c < k; ++c) sum += static_cast<double>(row[c]) * x[c];
    y[r] = sum;
  }
  return y;
}

namespace {

// ONNX QuantizeLinear to uint8 (zero point 128) then DequantizeLinear, with the scale in fp32 as the operators take it.
double QuantizeDequantize(double x, double scale) {
  const float s = static_cast<float>(scale);
  const float q = std::clamp(std::nearbyint(static_cast<float>(x) / s) + 128.0f, 0.0f, 255.0f);
  return static_cast<double>((q - 128.0f) * s);
}

}  // namespace

// Hugging Face's rotate_half: pairs (i, i + d/2) rotate by position * theta^(-2i/d).
void ReferenceDecoder::Rope(double* vec, int64_t position) const {
  const int64_t d = config_.head_dim, half = d / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double angle = static_cast<double>(position) * inv_freq_[static_cast<size_t>(i)];
    const double c = std::cos(angle), s = std::sin(angle);
    const double x1 = vec[i], x2 = vec[i + half];
    vec[i] = x1 * c - x2 * s;
    vec[i + half] = x2 * c + x1 * s;
  }
}

std::vector<float> ReferenceDecoder::Step(int64_t token) {
  const ReferenceConfig& c = config_;
  const int64_t h = c.hidden_size, d = c.head_dim;
  const std::vector<float>& embed = W("model.embed_tokens.weight");
  std::vector<double> x(static_cast<size_t>(h));
  for (int64_t i = 0; i < h; ++i) x[static_cast<size_t>(i)] = embed[static_cast<size_t>(token * h + i)];
  const int64_t pos = position_;
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const std::vector<double> xn = RmsNorm(x, W(Layer(l, "input_layernorm.weight")));
    std::vector<double> q = MatVec(W(Layer(l, "self_attn.q_proj.weight")), xn, c.num_heads * d);
    std::vector<double> k = MatVec(W(Layer(l, "self_attn.k_proj.weight")), xn, c.num_kv_heads * d);
    std::vector<double> v = MatVec(W(Layer(l, "self_attn.v_proj.weight")), xn, c.num_kv_heads * d);
    const auto head_norm = [&](std::vector<double>& t, int64_t heads, const std::string& name) {
      for (int64_t hh = 0; hh < heads; ++hh) {
        std::vector<double> part(t.begin() + hh * d, t.begin() + (hh + 1) * d);
        part = RmsNorm(part, W(Layer(l, name)));
        std::copy(part.begin(), part.end(), t.begin() + hh * d);
      }
    };
    if (c.qk_norm) {
      head_norm(q, c.num_heads, "self_attn.q_norm.weight");
      head_norm(k, c.num_kv_heads, "self_attn.k_norm.weight");
    }
    for (int64_t hh = 0; hh < c.num_heads; ++hh) Rope(q.data() + hh * d, pos);
    for (int64_t hh = 0; hh < c.num_kv_heads; ++hh) Rope(k.data() + hh * d, pos);
    if (!c.kv_key_scales.empty()) {
      for (double& e : k) e = QuantizeDequantize(e, c.kv_key_scales[static_cast<size_t>(l)]);
      for (double& e : v) e = QuantizeDequantize(e, c.kv_value_scales[static_cast<size_t>(l)]);
    }
    keys_[static_cast<size_t>(l)].push_back(k);
    values_[static_cast<size_t>(l)].push_back(v);
    const auto& keys = keys_[static_cast<size_t>(l)];
    const auto& values = values_[static_cast<size_t>(l)];
    const int64_t group = c.num_heads / c.num_kv_heads;
    std::vector<double> attn(static_cast<size_t>(c.num_heads * d), 0.0);
    for (int64_t hh = 0; hh < c.num_heads; ++hh) {
      const int64_t kvh = hh / group;
      std::vector<double> scores(keys.size());
      double max_score = -1e300;
      for (size_t t = 0; t < keys.size(); ++t) {
        double dot = 0;
        for (int64_t i = 0; i < d; ++i)
          dot += q[static_cast<size_t>(hh * d + i)] * keys[t][static_cast<size_t>(kvh * d + i)];
        scores[t] = dot / std::sqrt(static_cast<double>(d));
        max_score = std::max(max_score, scores[t]);
      }
      double total = 0;
      for (double& s : scores) total += (s = std::exp(s - max_score));
      for (size_t t = 0; t < keys.size(); ++t) {
        for (int64_t i = 0; i < d; ++i) {
          attn[static_cast<size_t>(hh * d + i)] += scores[t] / total * values[t][static_cast<size_t>(kvh * d + i)];
        }
      }
    }
    const std::vector<double> o = MatVec(W(Layer(l, "self_attn.o_proj.weight")), attn, h);
    for (int64_t i = 0; i < h; ++i) x[static_cast<size_t>(i)] += o[static_cast<size_t>(i)];
    const std::vector<double> yn = RmsNorm(x, W(Layer(l, "post_attention_layernorm.weight")));
    const std::vector<double> gate = MatVec(W(Layer(l, "mlp.gate_proj.weight")), yn, c.intermediate_size);
    const std::vector<double> up = MatVec(W(Layer(l, "mlp.up_proj.weight")), yn, c.intermediate_size);
    std::vector<double> act(gate.size());
    for (size_t i = 0; i < act.size(); ++i) act[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
    const std::vector<double> down = MatVec(W(Layer(l, "mlp.down_proj.weight")), act, h);
    for (int64_t i = 0; i < h; ++i) x[static_cast<size_t>(i)] += down[static_cast<size_t>(i)];
  }
  const std::vector<double> xn = RmsNorm(x, W("model.norm.weight"));
  const std::vector<double> logits =
      MatVec(W(c.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight"), xn, c.vocab_size);
  ++position_;
  return std::vector<float>(logits.begin(), logits.end());
}

}  // namespace modelkit::test
