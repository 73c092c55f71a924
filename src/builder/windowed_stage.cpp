#include "windowed_stage.h"

#include <algorithm>
#include <cmath>

#include "decoder_emitter.h"

namespace modelkit::builder {
namespace {

OnnxAttribute Perm(std::vector<int64_t> perm) { return {"perm", OnnxAttribute::Kind::kInts, 0, 0.0f, std::move(perm)}; }

// Masked scores get this added: finite (a row with every key masked, a pad position's, stays finite instead of
// becoming NaN that would reach the cache), and far below any real score, so exp() of it is exactly 0.
constexpr float kMaskedBias = -1e9f;

// Standard deviation of each row of W [rows, cols] applied to unit-variance inputs scaled by `gains` [cols].
double WidestRowDeviation(const std::vector<float>& w, int64_t rows, int64_t cols, const std::vector<float>& gains) {
  double widest = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double x = static_cast<double>(w[static_cast<size_t>(r * cols + c)]) * gains[static_cast<size_t>(c)];
      sum += x * x;
    }
    widest = std::max(widest, std::sqrt(sum));
  }
  return widest;
}

float ScaleFor(double deviation) {
  constexpr double kDeviations = 4.0;
  return static_cast<float>(std::max(deviation, 1e-6) * kDeviations / 127.0);
}

class WindowedAttention {
 public:
  WindowedAttention(DecoderEmitter& emitter, const WindowedKv& kv, int64_t window)
      : e_(emitter), spec_(emitter.spec()), kv_(kv), window_(window), context_(emitter.options().context_length) {}

  // Nodes every layer shares: the rotary tables at this run's positions and the additive mask [window, context].
  void EmitShared() {
    OnnxModelWriter& w = e_.writer();
    const int64_t axes2 = 2;
    w.AddInitializer("/model/constants/axes_2", OnnxType::kInt64, {1}, std::span<const int64_t>(&axes2, 1));
    for (const char* table : {"cos", "sin"}) {
      const std::string gathered = std::string("/model/rotary/") + table + "/Gather/output_0";
      w.AddNode("Gather", {std::string(table) + "_cache", "position_ids"}, {gathered});
      w.AddNode("Unsqueeze", {gathered, "/model/constants/axes_2"}, {RotaryTable(table)});
    }
    // Causal part: window row s sees every past column and window columns up to its own.
    const int64_t past = context_ - window_;
    std::vector<float> causal(static_cast<size_t>(window_ * context_), 0.0f);
    for (int64_t s = 0; s < window_; ++s) {
      for (int64_t j = s + 1; j < window_; ++j) causal[static_cast<size_t>(s * context_ + past + j)] = kMaskedBias;
    }
    w.AddFloats("/model/attn_mask/causal_bias", OnnxType::kFloat, {window_, context_}, causal);
    const float one = 1.0f, masked = -kMaskedBias;
    w.AddInitializer("/model/constants/one_f", OnnxType::kFloat, {}, std::span<const float>(&one, 1));
    w.AddInitializer("/model/constants/mask_magnitude", OnnxType::kFloat, {}, std::span<const float>(&masked, 1));
    // (mask - 1) * 1e9: 0 where the mask is 1, -1e9 where it is 0.
    w.AddNode("Cast", {"attention_mask"}, {"/model/attn_mask/Cast/output_0"}, {IntAttr("to", 1)});
    w.AddNode("Sub", {"/model/attn_mask/Cast/output_0", "/model/constants/one_f"}, {"/model/attn_mask/Sub/output_0"});
    w.AddNode("Mul", {"/model/attn_mask/Sub/output_0", "/model/constants/mask_magnitude"},
              {"/model/attn_mask/Mul/output_0"});
    w.AddNode("Add", {"/model/attn_mask/causal_bias", "/model/attn_mask/Mul/output_0"}, {kBias});
    // Attention runs on 3-D tensors batched by KV head, without broadcasting: queries [kv_heads, group * window,
    // head_dim], keys [kv_heads, head_dim, positions], values [kv_heads, positions, head_dim].
    const int64_t kv = spec_.num_kv_heads, group = spec_.num_heads / spec_.num_kv_heads, d = spec_.head_dim;
    const std::pair<const char*, std::vector<int64_t>> shapes[] = {
        {"q_by_kv_head", {window_, kv, group, d}},
        {"q3", {kv, group * window_, d}},
        {"keys_past3", {kv, d, past}},
        {"keys_window3", {kv, d, window_}},
        {"values_past3", {kv, past, d}},
        {"values_window3", {kv, window_, d}},
        {"scores4", {kv, group, window_, context_}},
        {"scores3", {kv, group * window_, context_}},
        {"context4", {kv, group, window_, d}},
        {"attn_out_shape", {1, window_, spec_.num_heads * d}}};
    for (const auto& [name, dims] : shapes) {
      w.AddInitializer(std::string("/model/constants/") + name, OnnxType::kInt64, {static_cast<int64_t>(dims.size())},
                       std::span<const int64_t>(dims));
    }
    const int64_t split[] = {context_ - window_, window_};
    w.AddInitializer("/model/constants/past_window_split", OnnxType::kInt64, {2}, std::span<const int64_t>(split));
    const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(spec_.head_dim)));
    w.AddInitializer("/model/constants/attn_scale", OnnxType::kFloat, {}, std::span<const float>(&scale, 1));
  }

  std::string operator()(int64_t l, const std::string& q, const std::string& k, const std::string& v) {
    OnnxModelWriter& w = e_.writer();
    const std::string p = "/model/layers." + std::to_string(l) + "/attn";
    const std::string q4 = p + "/q/Reshape/output_0", k4 = p + "/k/Reshape/output_0", v4 = p + "/v/Reshape/output_0";
    w.AddNode("Reshape", {q, e_.HeadsShape()}, {q4});
    w.AddNode("Reshape", {k, e_.HeadsShape()}, {k4});
    w.AddNode("Reshape", {v, e_.HeadsShape()}, {v4});
    const std::string q_rot = Rotary(q4, p + "/q_rotary"), k_rot = Rotary(k4, p + "/k_rotary");
    // [1, window, kv_heads, head_dim] -> keys [kv_heads, 1, head_dim, window], values [kv_heads, 1, window, head_dim].
    const std::string k_t = p + "/k/Transpose/output_0", v_t = p + "/v/Transpose/output_0";
    w.AddNode("Transpose", {k_rot}, {k_t}, {Perm({2, 0, 3, 1})});
    w.AddNode("Transpose", {v4}, {v_t}, {Perm({2, 0, 1, 3})});
    const size_t layer = static_cast<size_t>(l);
    const Readable keys = Cache(p + "/key", k_t, FormatLayerName(kPastKeyFormat, l),
                                FormatLayerName(kPresentKeyFormat, l), kv_.quantized ? kv_.key_scales[layer] : 0.0f);
    const Readable values =
        Cache(p + "/value", v_t, FormatLayerName(kPastValueFormat, l), FormatLayerName(kPresentValueFormat, l),
              kv_.quantized ? kv_.value_scales[layer] : 0.0f);
    // Queries grouped by the KV head they share: [kv_heads, group * window, head_dim], scaled.
    const std::string q_split = p + "/q/Reshape_1/output_0", q_t = p + "/q/Transpose/output_0";
    const std::string q3 = p + "/q/Reshape_2/output_0", q_scaled = p + "/q/Mul/output_0";
    w.AddNode("Reshape", {q_rot, "/model/constants/q_by_kv_head"}, {q_split});
    w.AddNode("Transpose", {q_split}, {q_t}, {Perm({1, 2, 0, 3})});
    w.AddNode("Reshape", {q_t, "/model/constants/q3"}, {q3});
    w.AddNode("Mul", {q3, "/model/constants/attn_scale"}, {q_scaled});
    // Scores against the past and against the window, concatenated: [kv_heads, group * window, context]. The cache
    // is read where it lies instead of being copied into one tensor with the window's keys every run (a context of
    // keys and values per step, the largest cost of a decode step on a CPU).
    const std::string past_scores = p + "/scores/past/MatMul/output_0";
    const std::string fresh_scores = p + "/scores/window/MatMul/output_0";
    w.AddNode("MatMul", {q_scaled, As3d(keys.past, "keys_past3")}, {past_scores});
    w.AddNode("MatMul", {q_scaled, As3d(keys.fresh, "keys_window3")}, {fresh_scores});
    const std::string scores = p + "/scores/Concat/output_0", scores4 = p + "/scores/Reshape/output_0";
    const std::string biased = p + "/scores/Add/output_0";
    w.AddNode("Concat", {past_scores, fresh_scores}, {scores}, {IntAttr("axis", -1)});
    w.AddNode("Reshape", {scores, "/model/constants/scores4"}, {scores4});  // [kv_heads, group, window, context]
    w.AddNode("Add", {scores4, kBias}, {biased});
    const std::string probs = p + "/Softmax/output_0", probs3 = p + "/probs/Reshape/output_0";
    w.AddNode("Softmax", {biased}, {probs}, {IntAttr("axis", -1)});
    w.AddNode("Reshape", {probs, "/model/constants/scores3"}, {probs3});
    const std::string past_probs = p + "/probs/Split/output_0", fresh_probs = p + "/probs/Split/output_1";
    w.AddNode("Split", {probs3, "/model/constants/past_window_split"}, {past_probs, fresh_probs},
              {IntAttr("axis", -1)});
    const std::string past_context = p + "/context/past/MatMul/output_0";
    const std::string fresh_context = p + "/context/window/MatMul/output_0";
    const std::string context = p + "/context/Add/output_0", context4 = p + "/context/Reshape_1/output_0";
    w.AddNode("MatMul", {past_probs, As3d(values.past, "values_past3")}, {past_context});
    w.AddNode("MatMul", {fresh_probs, As3d(values.fresh, "values_window3")}, {fresh_context});
    w.AddNode("Add", {past_context, fresh_context}, {context});  // [kv_heads, group * window, head_dim]
    w.AddNode("Reshape", {context, "/model/constants/context4"}, {context4});
    const std::string back = p + "/context/Transpose/output_0", out = p + "/context/Reshape/output_0";
    w.AddNode("Transpose", {context4}, {back}, {Perm({2, 0, 1, 3})});  // [window, kv_heads, group, head_dim]
    w.AddNode("Reshape", {back, "/model/constants/attn_out_shape"}, {out});
    return out;
  }

 private:
  static std::string RotaryTable(const char* table) { return std::string("/model/rotary/") + table + "/Unsqueeze"; }

  // Rotate-half rotary on [1, window, heads, head_dim] with the tables gathered at position_ids.
  std::string Rotary(const std::string& x, const std::string& p) {
    OnnxModelWriter& w = e_.writer();
    const std::string x1 = p + "/Split/output_0", x2 = p + "/Split/output_1";
    w.AddNode("Split", {x}, {x1, x2}, {IntAttr("axis", 3), IntAttr("num_outputs", 2)});
    const std::string cos = RotaryTable("cos"), sin = RotaryTable("sin");
    w.AddNode("Mul", {x1, cos}, {p + "/x1cos"});
    w.AddNode("Mul", {x2, sin}, {p + "/x2sin"});
    w.AddNode("Sub", {p + "/x1cos", p + "/x2sin"}, {p + "/first"});
    w.AddNode("Mul", {x2, cos}, {p + "/x2cos"});
    w.AddNode("Mul", {x1, sin}, {p + "/x1sin"});
    w.AddNode("Add", {p + "/x2cos", p + "/x1sin"}, {p + "/second"});
    const std::string out = p + "/Concat/output_0";
    w.AddNode("Concat", {p + "/first", p + "/second"}, {out}, {IntAttr("axis", 3)});
    return out;
  }

  // What attention reads of one of the cache's tensors, in fp32: the past's positions and the window's.
  struct Readable {
    std::string past;
    std::string fresh;
  };

  // The window's `fresh` keys or values become `present`, quantised when the cache is; returns what attention reads.
  Readable Cache(const std::string& p, const std::string& fresh, const std::string& past, const std::string& present,
                 float scale) {
    OnnxModelWriter& w = e_.writer();
    if (!kv_.quantized) {
      w.AddNode("Identity", {fresh}, {present});
      return {past, fresh};
    }
    w.AddInitializer(p + "/scale", OnnxType::kFloat, {}, std::span<const float>(&scale, 1));
    w.AddInitializer(p + "/zero_point", OnnxType::kUint8, {}, std::span<const uint8_t>(&kKvZeroPoint, 1));
    w.AddNode("QuantizeLinear", {fresh, p + "/scale", p + "/zero_point"}, {present});
    const Readable read{p + "/past/DequantizeLinear/output_0", p + "/present/DequantizeLinear/output_0"};
    w.AddNode("DequantizeLinear", {past, p + "/scale", p + "/zero_point"}, {read.past});
    w.AddNode("DequantizeLinear", {present, p + "/scale", p + "/zero_point"}, {read.fresh});
    return read;
  }

  // A cache tensor [kv_heads, 1, a, b] as [kv_heads, a, b] (`shape` names the constant).
  std::string As3d(const std::string& tensor, const char* shape) {
    const std::string out = tensor + "/Reshape3d";
    e_.writer().AddNode("Reshape", {tensor, std::string("/model/constants/") + shape}, {out});
    return out;
  }

  static constexpr const char* kBias = "/model/attn_mask/bias";

  DecoderEmitter& e_;
  const ModelSpec& spec_;
  const WindowedKv& kv_;
  int64_t window_;
  int64_t context_;
};

}  // namespace

WindowedKv EstimateKvScales(const ModelSpec& spec, const WeightSource& weights) {
  WindowedKv kv;
  const int64_t h = spec.hidden_size, kv_dim = spec.num_kv_heads * spec.head_dim;
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    const std::vector<float> gains = weights.Load(LayerTensor(l, "input_layernorm.weight"), {h});
    const std::vector<float> wv = weights.Load(LayerTensor(l, "self_attn.v_proj.weight"), {kv_dim, h});
    kv.value_scales.push_back(ScaleFor(WidestRowDeviation(wv, kv_dim, h, gains)));
    double key_deviation = 0;
    if (spec.arch == Arch::kQwen3) {  // per-head RMSNorm: each channel has the deviation of its norm weight
      for (const float g : weights.Load(LayerTensor(l, "self_attn.k_norm.weight"), {spec.head_dim})) {
        key_deviation = std::max(key_deviation, std::fabs(static_cast<double>(g)));
      }
    } else {
      key_deviation =
          WidestRowDeviation(weights.Load(LayerTensor(l, "self_attn.k_proj.weight"), {kv_dim, h}), kv_dim, h, gains);
    }
    kv.key_scales.push_back(ScaleFor(std::sqrt(2.0) * key_deviation));  // rotary mixes two channels
  }
  return kv;
}

uint64_t WriteWindowedLayersStage(const ModelSpec& spec, const WeightSource& weights,
                                  const DecoderGraphOptions& options, const WindowedKv& kv, int64_t window,
                                  const std::filesystem::path& model_path, BuildProgress& progress) {
  OnnxModelWriter writer(model_path, model_path.filename().string() + ".data");
  const int64_t context = options.context_length, past = context - window;
  const OnnxType act = ActivationType(options);
  const OnnxType kv_type = kv.quantized ? OnnxType::kUint8 : act;
  writer.AddInput(kEmbeddingsName, act, {int64_t{1}, window, spec.hidden_size});
  writer.AddInput("attention_mask", OnnxType::kInt32, {int64_t{1}, context});
  writer.AddInput("position_ids", OnnxType::kInt32, {int64_t{1}, window});
  writer.AddOutput(kHiddenStatesName, act, {int64_t{1}, window, spec.hidden_size});
  const OnnxDim heads = spec.num_kv_heads, one = int64_t{1}, dim = spec.head_dim;
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    writer.AddInput(FormatLayerName(kPastKeyFormat, l), kv_type, {heads, one, dim, past});
    writer.AddInput(FormatLayerName(kPastValueFormat, l), kv_type, {heads, one, past, dim});
  }
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    writer.AddOutput(FormatLayerName(kPresentKeyFormat, l), kv_type, {heads, one, dim, window});
    writer.AddOutput(FormatLayerName(kPresentValueFormat, l), kv_type, {heads, one, window, dim});
  }
  DecoderEmitter emitter(spec, weights, options, writer, progress);
  emitter.EmitConstants();
  WindowedAttention attention(emitter, kv, window);
  attention.EmitShared();
  std::string hidden = kEmbeddingsName;
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    hidden = emitter.EmitLayer(l, hidden,
                               [&](int64_t layer, const std::string& q, const std::string& k, const std::string& v) {
                                 return attention(layer, q, k, v);
                               });
  }
  writer.AddNode("Identity", {emitter.EmitFinalNorm(hidden)}, {kHiddenStatesName});
  return writer.Finish();
}

}  // namespace modelkit::builder
