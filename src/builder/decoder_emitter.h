// Emits a decoder's nodes and weights into one OnnxModelWriter, one layer at a time: embeddings, norms, linear layers
// (MatMul or MatMulNBits), the SwiGLU MLP and lm_head. The attention between the q/k/v projections and o_proj is the
// caller's (GroupQueryAttention for the dynamic layouts, plain ops for the windowed static layout).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "decoder_graph.h"
#include "int4.h"
#include "modelkit/builder/model_spec.h"
#include "onnx_writer.h"
#include "weight_source.h"

namespace modelkit::builder {

// Emits the decoder's nodes and weights into one OnnxModelWriter, one layer at a time.
class DecoderEmitter {
 public:
  DecoderEmitter(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                 OnnxModelWriter& writer, BuildProgress& progress)
      : spec_(spec),
        weights_(weights),
        options_(options),
        writer_(writer),
        progress_(progress),
        act_(ActivationType(options)) {}

  // An int64 constant "/model/constants/<name>" of `dims` holding `values`, added the first time it is asked for
  // (so a graph carries only the constants its nodes use). Returns its name.
  std::string IntsConstant(const std::string& name, const std::vector<int64_t>& dims,
                           const std::vector<int64_t>& values) {
    const std::string full = "/model/constants/" + name;
    if (constants_.insert(full).second) {
      writer_.AddInitializer(full, OnnxType::kInt64, dims, std::span<const int64_t>(values));
    }
    return full;
  }

  // The rotary caches "cos_cache" / "sin_cache".
  void EmitConstants() {
    // Rotary caches [context_length, head_dim / 2]: angle = position * inverse frequency.
    const int64_t half = spec_.head_dim / 2;
    std::vector<float> cos_cache(static_cast<size_t>(options_.context_length * half));
    std::vector<float> sin_cache(cos_cache.size());
    const std::vector<double> inv_freqs = RopeInverseFrequencies(spec_);
    for (int64_t i = 0; i < half; ++i) {
      const double inv_freq = inv_freqs[static_cast<size_t>(i)];
      for (int64_t pos = 0; pos < options_.context_length; ++pos) {
        const double angle = static_cast<double>(pos) * inv_freq;
        cos_cache[static_cast<size_t>(pos * half + i)] = static_cast<float>(std::cos(angle));
        sin_cache[static_cast<size_t>(pos * half + i)] = static_cast<float>(std::sin(angle));
      }
    }
    writer_.AddFloats("cos_cache", act_, {options_.context_length, half}, cos_cache);
    writer_.AddFloats("sin_cache", act_, {options_.context_length, half}, sin_cache);
  }

  // seqlens_k = sum(attention_mask) - 1 and total_sequence_length = attention_mask.shape[1], both int32, as
  // GroupQueryAttention wants them (works for a growing KV cache and for a shared max-length buffer).
  void EmitSequenceLengths(const std::string& attention_mask) {
    const std::string one = IntsConstant("one_i64", {}, {1}), axes_1 = IntsConstant("axes_1", {1}, {1});
    writer_.AddNode("ReduceSum", {attention_mask, axes_1}, {"/model/attn_mask/ReduceSum/output_0"},
                    {IntAttr("keepdims", 0)});
    writer_.AddNode("Sub", {"/model/attn_mask/ReduceSum/output_0", one}, {"/model/attn_mask/Sub/output_0"});
    writer_.AddNode("Cast", {"/model/attn_mask/Sub/output_0"}, {seqlens_k_}, {IntAttr("to", 6)});
    writer_.AddNode("Shape", {attention_mask}, {"/model/attn_mask/Shape/output_0"});
    writer_.AddNode("Gather", {"/model/attn_mask/Shape/output_0", one}, {"/model/attn_mask/Gather/output_0"},
                    {IntAttr("axis", 0)});
    writer_.AddNode("Cast", {"/model/attn_mask/Gather/output_0"}, {total_length_}, {IntAttr("to", 6)});
  }

  std::string EmitEmbeddings(const std::string& input_ids,
                             const std::string& out = "/model/embed_tokens/Gather/output_0") {
    const std::string name = "model.embed_tokens.weight";
    const int64_t vocab = spec_.vocab_size, hidden = spec_.hidden_size;
    const std::vector<float> table = Load(name, {vocab, hidden});
    if (options_.embeddings_precision != Precision::kInt4) {
      writer_.AddFloats(name, act_, {vocab, hidden}, table);
      writer_.AddNode("Gather", {name, input_ids}, {out});
      return out;
    }
    // GatherBlockQuantized (com.microsoft) over uint8 data holding two 4-bit values per byte, blocks along the
    // hidden axis; zero points are always given (8 when symmetric) so no operator default is relied on.
    const Int4Weight q = QuantizeInt4(table, vocab, hidden, options_.block_size, options_.int4_symmetric);
    const int64_t zp_per_row = (q.blocks_per_row + 1) / 2;
    std::vector<uint8_t> zero_points = q.zero_points;
    if (zero_points.empty()) zero_points.assign(static_cast<size_t>(vocab * zp_per_row), 0x88);
    writer_.AddInitializer(name + ".qweight", OnnxType::kUint8, {vocab, hidden / 2},
                           std::span<const uint8_t>(q.packed));
    writer_.AddFloats(name + ".scales", act_, {vocab, q.blocks_per_row}, q.scales);
    writer_.AddInitializer(name + ".zero_points", OnnxType::kUint8, {vocab, zp_per_row},
                           std::span<const uint8_t>(zero_points));
    writer_.AddNode("GatherBlockQuantized", {name + ".qweight", input_ids, name + ".scales", name + ".zero_points"},
                    {out},
                    {IntAttr("gather_axis", 0), IntAttr("quantize_axis", 1), IntAttr("block_size", options_.block_size),
                     IntAttr("bits", 4)},
                    "com.microsoft");
    return out;
  }

  // The attention of layer `l`: from its q [1|batch, seq, heads * head_dim] and k, v [.., kv_heads * head_dim]
  // projections (Qwen3's per-head norms applied, rotary not) to the attention output [.., seq, heads * head_dim].
  using Attention =
      std::function<std::string(int64_t l, const std::string& q, const std::string& k, const std::string& v)>;

  // GroupQueryAttention (rotary inside) over past/present KV [batch, kv_heads, length, head_dim].
  std::string EmitGroupQueryAttention(int64_t l, const std::string& q, const std::string& k, const std::string& v,
                                      const std::string& past_key, const std::string& past_value,
                                      const std::string& present_key, const std::string& present_value) {
    const std::string p = "/model/layers." + std::to_string(l);
    const std::string attn = p + "/attn/GroupQueryAttention/output_0";
    writer_.AddNode("GroupQueryAttention",
                    {q, k, v, past_key, past_value, seqlens_k_, total_length_, "cos_cache", "sin_cache"},
                    {attn, present_key, present_value},
                    {IntAttr("num_heads", spec_.num_heads), IntAttr("kv_num_heads", spec_.num_kv_heads),
                     IntAttr("do_rotary", 1), IntAttr("rotary_interleaved", 0),
                     FloatAttr("scale", static_cast<float>(1.0 / std::sqrt(static_cast<double>(spec_.head_dim))))},
                    "com.microsoft", p + "/attn/GroupQueryAttention");
    return attn;
  }

  std::string EmitLayer(int64_t l, const std::string& hidden, const Attention& attention) {
    const std::string p = "/model/layers." + std::to_string(l);
    const int64_t h = spec_.hidden_size, hd = spec_.head_dim;
    const int64_t q_dim = spec_.num_heads * hd, kv_dim = spec_.num_kv_heads * hd;
    const std::string x = Norm(hidden, LayerTensor(l, "input_layernorm.weight"), h, p + "/input_layernorm");
    const std::vector<std::string> qkv =
        Projections(x,
                    {{LayerTensor(l, "self_attn.q_proj.weight"), q_dim, p + "/attn/q_proj"},
                     {LayerTensor(l, "self_attn.k_proj.weight"), kv_dim, p + "/attn/k_proj"},
                     {LayerTensor(l, "self_attn.v_proj.weight"), kv_dim, p + "/attn/v_proj"}},
                    h, LayerTensor(l, "self_attn.qkv_proj.weight"), p + "/attn/qkv_proj");
    std::string q = qkv[0], k = qkv[1];
    const std::string& v = qkv[2];
    if (spec_.arch == Arch::kQwen3) {
      q = HeadNorm(q, LayerTensor(l, "self_attn.q_norm.weight"), p + "/attn/q_norm");
      k = HeadNorm(k, LayerTensor(l, "self_attn.k_norm.weight"), p + "/attn/k_norm");
    }
    const std::string attn = attention(l, q, k, v);
    const std::string o =
        Linear(attn, LayerTensor(l, "self_attn.o_proj.weight"), h, q_dim, options_.precision, p + "/attn/o_proj");
    const std::string residual = p + "/attn_residual/Add/output_0";
    writer_.AddNode("Add", {hidden, o}, {residual});
    const std::string y =
        Norm(residual, LayerTensor(l, "post_attention_layernorm.weight"), h, p + "/post_attention_layernorm");
    const int64_t inter = spec_.intermediate_size;
    const std::vector<std::string> gate_up =
        Projections(y,
                    {{LayerTensor(l, "mlp.gate_proj.weight"), inter, p + "/mlp/gate_proj"},
                     {LayerTensor(l, "mlp.up_proj.weight"), inter, p + "/mlp/up_proj"}},
                    h, LayerTensor(l, "mlp.gate_up_proj.weight"), p + "/mlp/gate_up_proj");
    const std::string &gate = gate_up[0], &up = gate_up[1];
    writer_.AddNode("Sigmoid", {gate}, {p + "/mlp/act_fn/Sigmoid/output_0"});
    writer_.AddNode("Mul", {gate, p + "/mlp/act_fn/Sigmoid/output_0"}, {p + "/mlp/act_fn/Mul/output_0"});
    writer_.AddNode("Mul", {p + "/mlp/act_fn/Mul/output_0", up}, {p + "/mlp/Mul/output_0"});
    const std::string down = Linear(p + "/mlp/Mul/output_0", LayerTensor(l, "mlp.down_proj.weight"), h, inter,
                                    options_.precision, p + "/mlp/down_proj");
    const std::string out = p + "/mlp_residual/Add/output_0";
    writer_.AddNode("Add", {residual, down}, {out});
    return out;
  }

  std::string EmitFinalNorm(const std::string& hidden) {
    return Norm(hidden, "model.norm.weight", spec_.hidden_size, "/model/norm");
  }

  void EmitLmHead(const std::string& x, const std::string& logits) {
    const std::string weight = spec_.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight";
    const std::string out = Linear(x, weight, spec_.vocab_size, spec_.hidden_size, options_.lm_head_precision,
                                   "/lm_head", "lm_head.weight");
    writer_.AddNode("Identity", {out}, {logits});
  }

  const std::string& seqlens_k() const { return seqlens_k_; }
  const std::string& total_length() const { return total_length_; }

  std::vector<float> Load(const std::string& name, const std::vector<int64_t>& shape) {
    std::vector<float> values = weights_.Load(name, shape);
    progress_.Advance();
    return values;
  }

  std::string Norm(const std::string& input, const std::string& weight, int64_t size, const std::string& prefix) {
    const std::vector<float> w = Load(weight, {size});
    writer_.AddFloats(weight, act_, {size}, w);
    const std::string out = prefix + "/SimplifiedLayerNormalization/output_0";
    writer_.AddNode(
        "SimplifiedLayerNormalization", {input, weight}, {out},
        {IntAttr("axis", -1), FloatAttr("epsilon", static_cast<float>(spec_.rms_norm_eps)), IntAttr("stash_type", 1)});
    return out;
  }

  // RMSNorm over each head of a [batch, seq, heads * head_dim] tensor (Qwen3's q_norm / k_norm).
  std::string HeadNorm(const std::string& input, const std::string& weight, const std::string& prefix) {
    const std::string heads = prefix + "/Reshape/output_0";
    writer_.AddNode("Reshape", {input, HeadsShape()}, {heads});
    const std::string normed = Norm(heads, weight, spec_.head_dim, prefix);
    const std::string out = prefix + "/Reshape_1/output_0";
    writer_.AddNode("Reshape", {normed, IntsConstant("flat_shape", {3}, {0, 0, -1})}, {out});
    return out;
  }

  // y = x W^T for a Hugging Face weight W [n, k] read as `weight` and stored as `stored_name` (default: same).
  std::string Linear(const std::string& input, const std::string& weight, int64_t n, int64_t k, Precision precision,
                     const std::string& prefix, const std::string& stored_name = "") {
    return LinearOf(input, Load(weight, {n, k}), n, k, precision, prefix, stored_name.empty() ? weight : stored_name);
  }

  // One projection of a group that reads the same input: its Hugging Face weight [n, k] and its node name prefix.
  struct Projection {
    std::string weight;
    int64_t n;
    std::string prefix;
  };
  // y_i = x W_i^T for each projection, k inputs each. With fused_projections (the default) they are one linear layer
  // of sum(n_i) outputs stored as `fused_name`, split back into one output per projection: one kernel over the input
  // instead of several (for int4: the input quantised once). Each output column is computed exactly as it is alone.
  // Returns the outputs in the order given.
  std::vector<std::string> Projections(const std::string& input, const std::vector<Projection>& projections, int64_t k,
                                       const std::string& fused_name, const std::string& fused_prefix) {
    std::vector<std::string> outputs;
    if (!options_.fuse_projections) {
      for (const Projection& projection : projections) {
        outputs.push_back(Linear(input, projection.weight, projection.n, k, options_.precision, projection.prefix));
      }
      return outputs;
    }
    // Rows of the Hugging Face layout are output features: stacking the weights stacks the outputs.
    std::vector<float> stacked;
    std::vector<int64_t> sizes;
    for (const Projection& projection : projections) {
      const std::vector<float> w = Load(projection.weight, {projection.n, k});
      stacked.insert(stacked.end(), w.begin(), w.end());
      sizes.push_back(projection.n);
      outputs.push_back(projection.prefix + "/output_0");
    }
    const int64_t n = static_cast<int64_t>(stacked.size()) / k;
    const std::string fused = LinearOf(input, std::move(stacked), n, k, options_.precision, fused_prefix, fused_name);
    const auto count = static_cast<int64_t>(sizes.size());
    writer_.AddInitializer(fused_prefix + "/split_sizes", OnnxType::kInt64, {count}, std::span<const int64_t>(sizes));
    writer_.AddNode("Split", {fused, fused_prefix + "/split_sizes"}, outputs, {IntAttr("axis", -1)}, "",
                    fused_prefix + "/Split");
    return outputs;
  }

  // y = x W^T for the values `w` of a weight [n, k] stored as `name`.
  std::string LinearOf(const std::string& input, std::vector<float> w, int64_t n, int64_t k, Precision precision,
                       const std::string& prefix, const std::string& name) {
    if (precision != Precision::kInt4) {
      std::vector<float> transposed(w.size());
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < k; ++c) transposed[static_cast<size_t>(c * n + r)] = w[static_cast<size_t>(r * k + c)];
      }
      std::vector<float>().swap(w);  // one copy at a time: the lm_head of a large vocabulary is the peak
      writer_.AddFloats(name, act_, {k, n}, transposed);
      const std::string out = prefix + "/MatMul/output_0";
      writer_.AddNode("MatMul", {input, name}, {out});
      return out;
    }
    const Int4Weight q = QuantizeInt4(w, n, k, options_.block_size, options_.int4_symmetric);
    writer_.AddInitializer(name + ".qweight", OnnxType::kUint8, {n, q.blocks_per_row, q.block_size / 2},
                           std::span<const uint8_t>(q.packed));
    writer_.AddFloats(name + ".scales", act_, {n * q.blocks_per_row}, q.scales);
    std::vector<std::string> inputs = {input, name + ".qweight", name + ".scales"};
    if (!q.zero_points.empty()) {
      writer_.AddInitializer(name + ".zero_points", OnnxType::kUint8, {static_cast<int64_t>(q.zero_points.size())},
                             std::span<const uint8_t>(q.zero_points));
      inputs.push_back(name + ".zero_points");
    }
    const std::string out = prefix + "/MatMulNBits/output_0";
    writer_.AddNode("MatMulNBits", inputs, {out},
                    {IntAttr("K", k), IntAttr("N", n), IntAttr("bits", 4), IntAttr("block_size", options_.block_size),
                     IntAttr("accuracy_level", options_.int4_accuracy_level)},
                    "com.microsoft");
    return out;
  }

  // [.., seq, heads * head_dim] -> [.., seq, heads, head_dim] (the shape constant of that Reshape).
  std::string HeadsShape() { return IntsConstant("heads_shape", {4}, {0, 0, -1, spec_.head_dim}); }

  const ModelSpec& spec() const { return spec_; }
  const DecoderGraphOptions& options() const { return options_; }
  OnnxModelWriter& writer() { return writer_; }
  OnnxType activation_type() const { return act_; }

 private:
  const ModelSpec& spec_;
  const WeightSource& weights_;
  const DecoderGraphOptions& options_;
  OnnxModelWriter& writer_;
  BuildProgress& progress_;
  std::string seqlens_k_ = "/model/attn_mask/seqlens_k";
  std::string total_length_ = "/model/attn_mask/total_seq_len";
  OnnxType act_;
  std::set<std::string> constants_;  // IntsConstant names already added
};

}  // namespace modelkit::builder
