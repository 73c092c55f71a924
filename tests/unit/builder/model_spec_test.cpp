// config.json parsing and the tensor list it implies.
#include "modelkit/builder/model_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "modelkit/base/error.h"

namespace modelkit::builder {
namespace {

nlohmann::json Qwen3Config() {
  return nlohmann::json::parse(R"({"model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 28,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072,
    "vocab_size": 151936, "rms_norm_eps": 1e-06, "rope_theta": 1000000, "max_position_embeddings": 40960,
    "tie_word_embeddings": true, "bos_token_id": 151643, "eos_token_id": 151645, "hidden_act": "silu",
    "rope_scaling": null, "torch_dtype": "bfloat16"})");
}

TEST(ModelSpecTest, ReadsQwen3Config) {
  const ModelSpec spec = SpecFromHfConfig(Qwen3Config(), "config.json");
  EXPECT_EQ(spec.arch, Arch::kQwen3);
  EXPECT_EQ(spec.head_dim, 128);
  EXPECT_EQ(spec.num_kv_heads, 8);
  EXPECT_EQ(spec.max_position_embeddings, 40960);
  EXPECT_TRUE(spec.tie_word_embeddings);
  EXPECT_EQ(spec.eos_token_ids, std::vector<int64_t>{151645});
  const auto tensors = ExpectedTensors(spec);
  EXPECT_EQ(tensors.size(), 1u + 28u * 11u + 1u);  // no lm_head when tied
  EXPECT_EQ(tensors[2].name, "model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(tensors[2].shape, (std::vector<int64_t>{2048, 1024}));
}

TEST(ModelSpecTest, LlamaDefaultsHeadDimAndKvHeads) {
  nlohmann::json config = Qwen3Config();
  config["model_type"] = "llama";
  config.erase("head_dim");
  config.erase("num_key_value_heads");
  config.erase("tie_word_embeddings");  // the transformers default: false
  const ModelSpec spec = SpecFromHfConfig(config, "config.json");
  EXPECT_EQ(spec.head_dim, 64);
  EXPECT_EQ(spec.num_kv_heads, 16);
  EXPECT_FALSE(spec.tie_word_embeddings);
  EXPECT_EQ(ExpectedTensors(spec).back().name, "lm_head.weight");
}

TEST(ModelSpecTest, RejectsWhatItCannotBuild) {
  const std::pair<const char*, nlohmann::json> cases[] = {
      {"unsupported architecture (model_type 'gpt2')", {{"model_type", "gpt2"}}},
      {"missing key 'hidden_size'", {{"hidden_size", nullptr}}},
      {"unsupported hidden_act 'gelu'", {{"hidden_act", "gelu"}}},
      {"rope_scaling type 'yarn' is not supported", {{"rope_scaling", {{"type", "yarn"}, {"factor", 4.0}}}}},
      {"rope_scaling.factor is missing", {{"rope_scaling", {{"rope_type", "llama3"}}}}},
      {"unsupported torch_dtype 'int8'", {{"torch_dtype", "int8"}}},
      {"multiple of key/value heads", {{"num_key_value_heads", 5}}}};
  for (const auto& [fragment, patch] : cases) {
    nlohmann::json config = Qwen3Config();
    for (const auto& [key, value] : patch.items()) config[key] = value;
    try {
      SpecFromHfConfig(config, "ckpt/config.json");
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
      EXPECT_THAT(e.what(), ::testing::HasSubstr(fragment));
      EXPECT_THAT(e.what(), ::testing::HasSubstr("ckpt/config.json"));
    }
  }
}

}  // namespace
}  // namespace modelkit::builder
