#include "support/safetensors_writer.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "modelkit/base/float16.h"

namespace modelkit::test {

std::string EncodeFloats(const std::vector<float>& values, const std::string& dtype) {
  std::string bytes;
  if (dtype == "F32") {
    bytes.assign(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    return bytes;
  }
  if (dtype != "F16" && dtype != "BF16") throw std::invalid_argument("EncodeFloats: dtype " + dtype);
  bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t v = dtype == "BF16" ? FloatToBFloat16Bits(values[i]) : FloatToHalfBits(values[i]);
    bytes[2 * i] = static_cast<char>(v & 0xFF);
    bytes[2 * i + 1] = static_cast<char>(v >> 8);
  }
  return bytes;
}

float RoundTrip(float value, const std::string& dtype) {
  if (dtype == "BF16") return BFloat16BitsToFloat(FloatToBFloat16Bits(value));
  if (dtype == "F16") return HalfBitsToFloat(FloatToHalfBits(value));
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
