// Search defaults from a bundle's generation_config.json: genai_config.json's `search` wins key by key,
// generation_config.json fills the keys it leaves unset, SearchConfig's defaults fill the rest. Bundles are written to
// temporary directories and read with LoadGenaiConfig, as Model::Load reads them.
#include <gtest/gtest.h>

#include <string>

#include "modelkit/base/error.h"
#include "modelkit/generate/config.h"
#include "support/temp_dir.h"

namespace modelkit::generate {
namespace {

using Json = nlohmann::ordered_json;
using test::TempDir;

// A flat genai_config.json whose `search` is `search` (omitted when null) and whose model eos is `eos` (omitted when
// null).
std::string GenaiConfigText(const Json& search, const Json& eos = Json()) {
  Json config = Json::parse(R"({"model": {"type": "qwen3", "vocab_size": 256, "context_length": 64, "pad_token_id": 0,
    "decoder": {"filename": "model.onnx", "num_key_value_heads": 2, "num_hidden_layers": 2, "head_size": 16}}})");
  if (!eos.is_null()) config["model"]["eos_token_id"] = eos;
  if (!search.is_null()) config["search"] = search;
  return config.dump(2);
}

// Qwen3-0.6B's generation_config.json, plus min/max length and a repetition penalty.
constexpr const char* kGenerationConfig = R"({
  "bos_token_id": 151643, "do_sample": true, "eos_token_id": [151645, 151643], "pad_token_id": 151643,
  "temperature": 0.6, "top_k": 20, "top_p": 0.95, "repetition_penalty": 1.1, "min_length": 3, "max_length": 40,
  "max_new_tokens": 7, "num_beams": 4, "transformers_version": "4.51.0"})";

std::string LoadError(const TempDir& bundle) {
  try {
    LoadGenaiConfig(bundle.path());
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kInvalidModel);
    return error.what();
  }
  return "";
}

TEST(GenerationConfigTest, WithoutItTheBuiltInDefaultsHold) {
  TempDir bundle;
  bundle.Write("genai_config.json", GenaiConfigText(Json()));
  const auto config = LoadGenaiConfig(bundle.path());
  EXPECT_TRUE(config.generation_config_file.empty());
  EXPECT_FALSE(config.search.do_sample);
  EXPECT_EQ(config.search.top_k, 50);
  EXPECT_DOUBLE_EQ(config.search.top_p, 1.0);
  EXPECT_DOUBLE_EQ(config.search.temperature, 1.0);
  EXPECT_DOUBLE_EQ(config.search.repetition_penalty, 1.0);
  EXPECT_EQ(config.search.min_length, 0);
  EXPECT_EQ(config.MaxLength(), 64);
  EXPECT_EQ(config.eos_token_ids, std::vector<int64_t>{0});  // pad_token_id stands in
}

TEST(GenerationConfigTest, FillsEveryKeyWhenGenaiConfigHasNoSearch) {
  TempDir bundle;
  bundle.Write("genai_config.json", GenaiConfigText(Json()));
  bundle.Write("generation_config.json", kGenerationConfig);
  const auto config = LoadGenaiConfig(bundle.path());
  EXPECT_EQ(config.generation_config_file, bundle.path() / "generation_config.json");
  EXPECT_TRUE(config.search.do_sample);
  EXPECT_EQ(config.search.top_k, 20);
  EXPECT_DOUBLE_EQ(config.search.top_p, 0.95);
  EXPECT_DOUBLE_EQ(config.search.temperature, 0.6);
  EXPECT_DOUBLE_EQ(config.search.repetition_penalty, 1.1);
  EXPECT_EQ(config.search.min_length, 3);
  EXPECT_EQ(config.MaxLength(), 40);
  EXPECT_EQ(config.eos_token_ids, (std::vector<int64_t>{151645, 151643}));  // replaces the pad fallback
  EXPECT_EQ(config.search.num_beams, 1);                                    // beam settings are not taken from it
}

TEST(GenerationConfigTest, GenaiSearchWinsKeyByKey) {
  TempDir bundle;
  // What onnxruntime-genai's builder writes for a greedy model: every key set, so nothing is filled.
  bundle.Write("genai_config.json",
               GenaiConfigText(Json::parse(R"({"do_sample": false, "top_k": 1, "top_p": 1.0, "temperature": 1.0,
                                           "repetition_penalty": 1.0, "min_length": 0, "max_length": 64})"),
                               Json::array({2, 7})));
  bundle.Write("generation_config.json", kGenerationConfig);
  auto config = LoadGenaiConfig(bundle.path());
  EXPECT_FALSE(config.search.do_sample);
  EXPECT_EQ(config.search.top_k, 1);
  EXPECT_DOUBLE_EQ(config.search.top_p, 1.0);
  EXPECT_DOUBLE_EQ(config.search.temperature, 1.0);
  EXPECT_DOUBLE_EQ(config.search.repetition_penalty, 1.0);
  EXPECT_EQ(config.search.min_length, 0);
  EXPECT_EQ(config.MaxLength(), 64);
  EXPECT_EQ(config.eos_token_ids, (std::vector<int64_t>{2, 7}));

  // Only some keys set: those stay, the others come from generation_config.json.
  bundle.Write("genai_config.json",
               GenaiConfigText(Json::parse(R"({"temperature": 0.0, "top_k": 5, "max_length": 0})")));
  config = LoadGenaiConfig(bundle.path());
  EXPECT_DOUBLE_EQ(config.search.temperature, 0.0);
  EXPECT_EQ(config.search.top_k, 5);
  EXPECT_EQ(config.MaxLength(), 64);  // an explicit 0 (= context_length) is a setting too
  EXPECT_TRUE(config.search.do_sample);
  EXPECT_DOUBLE_EQ(config.search.top_p, 0.95);
  EXPECT_DOUBLE_EQ(config.search.repetition_penalty, 1.1);
  EXPECT_EQ(config.search.min_length, 3);

  // A null in `search` sets nothing.
  bundle.Write("genai_config.json", GenaiConfigText(Json::parse(R"({"top_p": null})")));
  EXPECT_DOUBLE_EQ(LoadGenaiConfig(bundle.path()).search.top_p, 0.95);
}

TEST(GenerationConfigTest, TheBundleDirectoryComesBeforeTheTokenizerDirectory) {
  TempDir bundle;
  Json genai = Json::parse(GenaiConfigText(Json()));
  genai["model"]["tokenizer_dir"] = "tok";
  bundle.Write("genai_config.json", genai.dump());
  bundle.Write("tok/generation_config.json", R"({"top_k": 9})");
  EXPECT_EQ(LoadGenaiConfig(bundle.path()).search.top_k, 9);
  bundle.Write("generation_config.json", R"({"top_k": 3})");
  EXPECT_EQ(LoadGenaiConfig(bundle.path()).search.top_k, 3);
}

TEST(GenerationConfigTest, BadValuesNameTheFileAndKey) {
  TempDir bundle;
  bundle.Write("genai_config.json", GenaiConfigText(Json()));
  const std::string file = (bundle.path() / "generation_config.json").string();
  bundle.Write("generation_config.json", R"({"top_p": "high"})");
  EXPECT_NE(LoadError(bundle).find(file + ": $.top_p must be a number"), std::string::npos) << LoadError(bundle);
  bundle.Write("generation_config.json", R"({"temperature": -1})");
  EXPECT_NE(LoadError(bundle).find(file + ": $.temperature must be >= 0"), std::string::npos) << LoadError(bundle);
  bundle.Write("generation_config.json", R"({"eos_token_id": "two"})");
  EXPECT_NE(LoadError(bundle).find(file + ": $.eos_token_id"), std::string::npos) << LoadError(bundle);
  bundle.Write("generation_config.json", "{ not json");
  EXPECT_NE(LoadError(bundle).find(file + " is not valid JSON"), std::string::npos) << LoadError(bundle);
  bundle.Write("generation_config.json", "[]");
  EXPECT_NE(LoadError(bundle).find(file), std::string::npos) << LoadError(bundle);
  // A bad value genai_config.json overrides is not read.
  bundle.Write("genai_config.json", GenaiConfigText(Json::parse(R"({"top_p": 0.5})")));
  bundle.Write("generation_config.json", R"({"top_p": "high"})");
  EXPECT_DOUBLE_EQ(LoadGenaiConfig(bundle.path()).search.top_p, 0.5);
}

}  // namespace
}  // namespace modelkit::generate
