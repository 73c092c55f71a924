#include "modelkit/builder/model_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "modelkit/base/error.h"

namespace modelkit::builder {
namespace {

Error Invalid(const std::string& message) { return Error(ExitCode::kInvalidModel, message); }

int64_t RequiredInt(const nlohmann::json& config, const std::string& key, const std::string& file) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) throw Invalid(file + ": missing key '" + key + "'");
  if (!it->is_number_integer()) throw Invalid(file + ": key '" + key + "' must be an integer");
  return it->get<int64_t>();
}

std::optional<int64_t> OptionalInt(const nlohmann::json& config, const std::string& key, const std::string& file) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) throw Invalid(file + ": key '" + key + "' must be an integer");
  return it->get<int64_t>();
}

double RopeNumber(const nlohmann::json& scaling, const char* key, double fallback, const std::string& file) {
  const auto it = scaling.find(key);
  if (it == scaling.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0)) {
    throw Invalid(file + ": rope_scaling." + key + " must be a positive number");
  }
  return it->get<double>();
}

RopeScaling ParseRopeScaling(const nlohmann::json& scaling, const std::string& file) {
  if (!scaling.is_object()) throw Invalid(file + ": rope_scaling must be an object or null");
  // transformers spells the kind "rope_type" (older files: "type").
  std::string type = scaling.value("rope_type", scaling.value("type", std::string("default")));
  RopeScaling rope;
  if (type == "default") return rope;
  if (type != "linear" && type != "llama3") {
    throw Invalid(file + ": rope_scaling type '" + type + "' is not supported yet; supported: default, linear, llama3");
  }
  rope.type = type == "linear" ? RopeScaling::Type::kLinear : RopeScaling::Type::kLlama3;
  rope.factor = RopeNumber(scaling, "factor", 0, file);
  if (rope.factor == 0) throw Invalid(file + ": rope_scaling.factor is missing");
  if (rope.type == RopeScaling::Type::kLlama3) {
    rope.low_freq_factor = RopeNumber(scaling, "low_freq_factor", 1.0, file);
    rope.high_freq_factor = RopeNumber(scaling, "high_freq_factor", 4.0, file);
    rope.original_max_position_embeddings = RopeNumber(scaling, "original_max_position_embeddings", 8192, file);
    if (rope.high_freq_factor <= rope.low_freq_factor) {
      throw Invalid(file + ": rope_scaling.high_freq_factor must exceed low_freq_factor");
    }
  }
  return rope;
}

}  // namespace

std::vector<double> RopeInverseFrequencies(const ModelSpec& spec) {
  const int64_t half = spec.head_dim / 2;
  std::vector<double> inv_freq(static_cast<size_t>(half));
  const RopeScaling& rope = spec.rope_scaling;
  constexpr double kPi = 3.14159265358979323846;
  for (int64_t i = 0; i < half; ++i) {
    double f = std::pow(spec.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(spec.head_dim));
    if (rope.type == RopeScaling::Type::kLinear) {
      f /= rope.factor;
    } else if (rope.type == RopeScaling::Type::kLlama3) {
      const double wavelen = 2 * kPi / f;
      const double low_freq_wavelen = rope.original_max_position_embeddings / rope.low_freq_factor;
      const double high_freq_wavelen = rope.original_max_position_embeddings / rope.high_freq_factor;
      if (wavelen > low_freq_wavelen) {
        f /= rope.factor;
      } else if (wavelen >= high_freq_wavelen) {
        const double smooth = (rope.original_max_position_embeddings / wavelen - rope.low_freq_factor) /
                              (rope.high_freq_factor - rope.low_freq_factor);
        f = (1 - smooth) * f / rope.factor + smooth * f;
      }
    }
    inv_freq[static_cast<size_t>(i)] = f;
  }
  return inv_freq;
}

std::string ArchName(Arch arch) { return arch == Arch::kQwen3 ? "qwen3" : "llama"; }

std::optional<Arch> ParseArch(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "qwen3") return Arch::kQwen3;
  if (lower == "llama") return Arch::kLlama;
  return std::nullopt;
}

void ValidateSpec(const ModelSpec& spec, const std::string& where, int code) {
  const auto fail = [&](const std::string& what) { throw Error(static_cast<ExitCode>(code), where + ": " + what); };
  const std::pair<const char*, int64_t> dims[] = {
      {"hidden size", spec.hidden_size},   {"number of layers", spec.num_layers},
      {"attention heads", spec.num_heads}, {"key/value heads", spec.num_kv_heads},
      {"head dim", spec.head_dim},         {"intermediate size", spec.intermediate_size},
      {"vocab size", spec.vocab_size}};
  for (const auto& [name, value] : dims) {
    if (value <= 0) fail(std::string(name) + " must be positive (got " + std::to_string(value) + ")");
  }
  if (spec.num_heads % spec.num_kv_heads != 0) {
    fail("attention heads (" + std::to_string(spec.num_heads) + ") must be a multiple of key/value heads (" +
         std::to_string(spec.num_kv_heads) + ")");
  }
  if (spec.head_dim % 16 != 0) {
    fail("head dim must be a multiple of 16 for ONNX Runtime's GroupQueryAttention (got " +
         std::to_string(spec.head_dim) + ")");
  }
  if (!(spec.rms_norm_eps > 0)) fail("rms_norm_eps must be positive");
  if (!(spec.rope_theta > 0)) fail("rope_theta must be positive");
}

ModelSpec SpecFromHfConfig(const nlohmann::json& config, const std::string& file) {
  if (!config.is_object()) throw Invalid(file + ": expected a JSON object");
  const auto type_it = config.find("model_type");
  if (type_it == config.end() || !type_it->is_string()) throw Invalid(file + ": missing key 'model_type'");
  const auto arch = ParseArch(type_it->get<std::string>());
  if (!arch) {
    throw Invalid(file + ": unsupported architecture (model_type '" + type_it->get<std::string>() +
                  "'); supported: qwen3, llama");
  }
  ModelSpec spec;
  spec.arch = *arch;
  spec.hidden_size = RequiredInt(config, "hidden_size", file);
  spec.num_layers = RequiredInt(config, "num_hidden_layers", file);
  spec.num_heads = RequiredInt(config, "num_attention_heads", file);
  spec.num_kv_heads = OptionalInt(config, "num_key_value_heads", file).value_or(spec.num_heads);
  spec.head_dim =
      OptionalInt(config, "head_dim", file).value_or(spec.num_heads > 0 ? spec.hidden_size / spec.num_heads : 0);
  spec.intermediate_size = RequiredInt(config, "intermediate_size", file);
  spec.vocab_size = RequiredInt(config, "vocab_size", file);
  spec.max_position_embeddings = OptionalInt(config, "max_position_embeddings", file).value_or(0);
  if (const auto it = config.find("rms_norm_eps"); it != config.end() && it->is_number()) spec.rms_norm_eps = *it;
  spec.rope_theta = spec.arch == Arch::kQwen3 ? 1e6 : 1e4;
  if (const auto it = config.find("rope_theta"); it != config.end() && it->is_number()) spec.rope_theta = *it;
  // Absent means the transformers default of both classes (false); BuildBundle then looks for lm_head.weight.
  spec.tie_word_embeddings = config.value("tie_word_embeddings", false);
  if (const auto it = config.find("hidden_act"); it != config.end() && it->is_string() && *it != "silu") {
    throw Invalid(file + ": unsupported hidden_act '" + it->get<std::string>() + "'; supported: silu");
  }
  if (const auto it = config.find("rope_scaling"); it != config.end() && !it->is_null()) {
    spec.rope_scaling = ParseRopeScaling(*it, file);
  }
  if (config.value("attention_bias", false)) throw Invalid(file + ": attention_bias is not supported yet");
  if (const auto it = config.find("torch_dtype"); it != config.end() && it->is_string()) {
    const std::string dtype = *it;
    if (dtype != "float32" && dtype != "float16" && dtype != "bfloat16") {
      throw Invalid(file + ": unsupported torch_dtype '" + dtype + "'; supported: float32, float16, bfloat16");
    }
  }
  spec.bos_token_id = OptionalInt(config, "bos_token_id", file);
  if (const auto it = config.find("eos_token_id"); it != config.end() && !it->is_null()) {
    if (it->is_number_integer()) {
      spec.eos_token_ids.push_back(*it);
    } else if (it->is_array()) {
      for (const auto& id : *it) {
        if (!id.is_number_integer()) throw Invalid(file + ": key 'eos_token_id' must hold integers");
        spec.eos_token_ids.push_back(id);
      }
    } else {
      throw Invalid(file + ": key 'eos_token_id' must be an integer or an array");
    }
  }
  spec.pad_token_id = OptionalInt(config, "pad_token_id", file);
  ValidateSpec(spec, file, static_cast<int>(ExitCode::kInvalidModel));
  return spec;
}

std::string LayerTensor(int64_t layer, const std::string& suffix) {
  return "model.layers." + std::to_string(layer) + "." + suffix;
}

std::vector<TensorRef> ExpectedTensors(const ModelSpec& spec) {
  const int64_t h = spec.hidden_size, q = spec.num_heads * spec.head_dim, kv = spec.num_kv_heads * spec.head_dim;
  const int64_t inter = spec.intermediate_size;
  std::vector<TensorRef> refs = {{"model.embed_tokens.weight", {spec.vocab_size, h}}};
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    refs.push_back({LayerTensor(l, "input_layernorm.weight"), {h}});
    refs.push_back({LayerTensor(l, "self_attn.q_proj.weight"), {q, h}});
    refs.push_back({LayerTensor(l, "self_attn.k_proj.weight"), {kv, h}});
    refs.push_back({LayerTensor(l, "self_attn.v_proj.weight"), {kv, h}});
    if (spec.arch == Arch::kQwen3) {
      refs.push_back({LayerTensor(l, "self_attn.q_norm.weight"), {spec.head_dim}});
      refs.push_back({LayerTensor(l, "self_attn.k_norm.weight"), {spec.head_dim}});
    }
    refs.push_back({LayerTensor(l, "self_attn.o_proj.weight"), {h, q}});
    refs.push_back({LayerTensor(l, "post_attention_layernorm.weight"), {h}});
    refs.push_back({LayerTensor(l, "mlp.gate_proj.weight"), {inter, h}});
    refs.push_back({LayerTensor(l, "mlp.up_proj.weight"), {inter, h}});
    refs.push_back({LayerTensor(l, "mlp.down_proj.weight"), {h, inter}});
  }
  refs.push_back({"model.norm.weight", {h}});
  if (!spec.tie_word_embeddings) refs.push_back({"lm_head.weight", {spec.vocab_size, h}});
  return refs;
}

}  // namespace modelkit::builder
