// genai_config.json parsing: defaults, strictness about consumed keys, errors naming file and JSON path.
#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "modelkit/generate/config.h"

namespace modelkit::generate {
namespace {

using Json = nlohmann::ordered_json;

Json Flat() {
  return Json::parse(R"({"model": {"type": "qwen3", "vocab_size": 256, "context_length": 64, "eos_token_id": [2, 7],
    "decoder": {"filename": "model.onnx", "num_key_value_heads": 2, "num_hidden_layers": 2, "head_size": 16,
                "session_options": {"intra_op_num_threads": 2, "provider_options": [{"qnn": {"htp": "1"}}, {}],
                                    "session.x": "1"},
                "some_future_key": true}},
    "search": {"max_length": 0, "top_k": 1, "past_present_share_buffer": true}})");
}

std::string ErrorOf(const Json& document) {
  try {
    ParseGenaiConfig(document, "/b", "/b/genai_config.json");
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kInvalidModel);
    return error.what();
  }
  return "";
}

TEST(GenaiConfigTest, ReadsFlatConfigWithDefaults) {
  const GenaiConfig config = ParseGenaiConfig(Flat(), "/b", "genai_config.json");
  EXPECT_EQ(config.type, "qwen3");
  EXPECT_EQ(config.eos_token_ids, (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(config.MaxLength(), 64);
  EXPECT_EQ(config.decoder.names.past_key_names, "past_key_values.%d.key");
  EXPECT_EQ(config.decoder.names.present_value_names, "present.%d.value");
  ASSERT_EQ(config.decoder.session_options.providers.size(), 1u);
  EXPECT_EQ(config.decoder.session_options.providers[0].name, "qnn");
  EXPECT_EQ(config.decoder.session_options.intra_op_num_threads, 2);
  EXPECT_EQ(config.decoder.session_options.config_entries.at("session.x"), "1");
  EXPECT_TRUE(config.search.past_present_share_buffer);
  EXPECT_EQ(config.tokenizer_dir, std::filesystem::path("/b"));
  EXPECT_EQ(LayerName("past.%d.key", 11), "past.11.key");
}

TEST(GenaiConfigTest, PipelineStagesInOrderWithTheirOwnOptions) {
  Json doc = Flat();
  doc["model"]["type"] = "decoder-pipeline";
  doc["model"]["decoder"]["pipeline"] = Json::parse(R"([{
    "emb": {"filename": "e.onnx", "inputs": ["input_ids"], "outputs": ["x"], "output_names_forwarder": {"x": "h"}},
    "ctx": {"filename": "c.onnx", "inputs": ["h"], "outputs": ["logits"], "run_on_token_gen": false,
            "is_lm_head": true, "session_options": {"provider_options": []}}}])");
  const GenaiConfig config = ParseGenaiConfig(doc, "/b", "genai_config.json");
  ASSERT_EQ(config.decoder.pipeline.size(), 2u);
  EXPECT_EQ(config.decoder.pipeline[0].name, "emb");
  EXPECT_FALSE(config.decoder.pipeline[0].session_options.has_value());
  EXPECT_EQ(config.decoder.pipeline[0].output_names_forwarder.at("x"), "h");
  EXPECT_TRUE(config.decoder.pipeline[1].session_options.has_value());
  EXPECT_TRUE(config.decoder.pipeline[1].session_options->providers.empty());
  EXPECT_FALSE(config.decoder.pipeline[1].run_on_token_gen);
  EXPECT_TRUE(config.decoder.pipeline[1].is_lm_head);
}

TEST(GenaiConfigTest, ErrorsNameFileAndPath) {
  Json doc = Flat();
  doc["model"]["vocab_size"] = "big";
  EXPECT_NE(ErrorOf(doc).find("/b/genai_config.json: $.model.vocab_size must be an integer"), std::string::npos);
  doc = Flat();
  doc["model"]["type"] = "t5";
  EXPECT_NE(ErrorOf(doc).find("$.model.type"), std::string::npos);
  doc = Flat();
  doc["model"]["decoder"]["filename"] = "../x.onnx";
  EXPECT_NE(ErrorOf(doc).find("$.model.decoder.filename"), std::string::npos);
  doc = Flat();
  doc["model"]["decoder"]["sliding_window"] = Json::object();
  EXPECT_NE(ErrorOf(doc).find("not supported yet"), std::string::npos);
  doc = Flat();
  doc["search"]["num_beams"] = 4;
  EXPECT_NE(ErrorOf(doc).find("$.search.num_beams"), std::string::npos);
  doc = Flat();
  doc["model"].erase("context_length");
  EXPECT_NE(ErrorOf(doc).find("$.model.context_length"), std::string::npos);
}

}  // namespace
}  // namespace modelkit::generate
