#include "support/safetensors_writer.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace modelkit::test {
namespace {

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

uint16_t ToBf16(float value) {
  const uint32_t x = Bits(value);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

uint16_t ToF16(float value) {
  const uint32_t x = Bits(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exponent = static_cast<int32_t>((x >> 23) & 0xFFu) - 127 + 15;
  uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

float FromF16(uint16_t h) {  // finite values only: what the test weights produce
  const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  const float magnitude = exponent == 0
                              ? std::ldexp(static_cast<float>(mantissa), -24)
                              : std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  return (h & 0x8000u) ? -magnitude : magnitude;
}

}  // namespace

std::string EncodeFloats(const std::vector<float>& values, const std::string& dtype) {
  std::string bytes;
  if (dtype == "F32") {
    bytes.assign(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    return bytes;
  }
  if (dtype != "F16" && dtype != "BF16") throw std::invalid_argument("EncodeFloats: dtype " + dtype);
  bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t v = dtype == "BF16" ? ToBf16(values[i]) : ToF16(values[i]);
    bytes[2 * i] = static_cast<char>(v & 0xFF);
    bytes[2 * i + 1] = static_cast<char>(v >> 8);
  }
  return bytes;
}

float RoundTrip(float value, const std::string& dtype) {
  if (dtype == "BF16") {
    const uint32_t bits = static_cast<uint32_t>(ToBf16(value)) << 16;
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
  }
  if (dtype == "F16") return FromF16(ToF16(value));
  return value;
}

void WriteSafetensors(const std::filesystem::path& path, const std::vector<RawTensor>& tensors) {
  nlohmann::ordered_json header = {{"__metadata__", {{"format", "pt"}}}};
  uint64_t offset = 0;
  for (const RawTensor& t : tensors) {
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::ofstream out(path, std::ios::binary);
  const uint64_t size = text.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((size >> (8 * i)) & 0xFF));
  out << text;
  for (const RawTensor& t : tensors) out << t.bytes;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string HfConfigJson(const builder::ModelSpec& spec) {
  const bool qwen3 = spec.arch == builder::Arch::kQwen3;
  nlohmann::ordered_json config = {{"architectures", {qwen3 ? "Qwen3ForCausalLM" : "LlamaForCausalLM"}},
                                   {"model_type", qwen3 ? "qwen3" : "llama"},
                                   {"hidden_size", spec.hidden_size},
                                   {"num_hidden_layers", spec.num_layers},
                                   {"num_attention_heads", spec.num_heads},
                                   {"num_key_value_heads", spec.num_kv_heads},
                                   {"head_dim", spec.head_dim},
                                   {"intermediate_size", spec.intermediate_size},
                                   {"vocab_size", spec.vocab_size},
                                   {"rms_norm_eps", spec.rms_norm_eps},
                                   {"rope_theta", spec.rope_theta},
                                   {"max_position_embeddings", 128},
                                   {"tie_word_embeddings", spec.tie_word_embeddings},
                                   {"hidden_act", "silu"},
                                   {"attention_bias", false},
                                   {"rope_scaling", nullptr},
                                   {"bos_token_id", 1},
                                   {"eos_token_id", 2},
                                   {"torch_dtype", "bfloat16"}};
  return config.dump(2);
}

void WriteHfCheckpoint(const std::filesystem::path& dir, const builder::ModelSpec& spec,
                       const builder::WeightSource& source, const std::string& dtype, int shards) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << HfConfigJson(spec);
  const std::vector<builder::TensorRef> refs = builder::ExpectedTensors(spec);
  std::vector<std::vector<RawTensor>> files(static_cast<size_t>(shards));
  for (size_t i = 0; i < refs.size(); ++i) {
    files[i % files.size()].push_back(
        {refs[i].name, dtype, refs[i].shape, EncodeFloats(source.Load(refs[i].name, refs[i].shape), dtype)});
  }
  if (shards == 1) {
    WriteSafetensors(dir / "model.safetensors", files[0]);
    return;
  }
  nlohmann::ordered_json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::ordered_json::object()}};
  for (int s = 0; s < shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", s + 1, shards);
    WriteSafetensors(dir / name, files[static_cast<size_t>(s)]);
    for (const RawTensor& t : files[static_cast<size_t>(s)]) index["weight_map"][t.name] = name;
  }
  std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
}

}  // namespace modelkit::test
