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
  EXPECT_NE(ErrorOf(doc).find("$.model.decoder.sliding_window.window_size is required"), std::string::npos);
  doc = Flat();
  doc["search"]["num_beams"] = 4;
  EXPECT_NE(ErrorOf(doc).find("$.search.num_beams"), std::string::npos);
  doc = Flat();
  doc["model"].erase("context_length");
  EXPECT_NE(ErrorOf(doc).find("$.model.context_length"), std::string::npos);
}

TEST(GenaiConfigTest, GraphOptimizationLevelIsMappedWhenParsed) {
  const std::pair<const char*, OptimizationLevel> levels[] = {{"ORT_DISABLE_ALL", OptimizationLevel::kDisableAll},
                                                              {"ORT_ENABLE_BASIC", OptimizationLevel::kBasic},
                                                              {"ORT_ENABLE_EXTENDED", OptimizationLevel::kExtended},
                                                              {"ORT_ENABLE_ALL", OptimizationLevel::kAll}};
  for (const auto& [name, level] : levels) {
    Json doc = Flat();
    doc["model"]["decoder"]["session_options"]["graph_optimization_level"] = name;
    const GenaiConfig config = ParseGenaiConfig(doc, "/b", "genai_config.json");
    EXPECT_EQ(config.decoder.session_options.graph_optimization_level, level) << name;
    EXPECT_FALSE(config.decoder.session_options.config_entries.count("graph_optimization_level"));
  }
  EXPECT_FALSE(ParseGenaiConfig(Flat(), "/b", "genai_config.json").decoder.session_options.graph_optimization_level);
  Json doc = Flat();
  doc["model"]["decoder"]["session_options"]["graph_optimization_level"] = "ORT_ENABLE_SOME";
  EXPECT_EQ(ErrorOf(doc),
            "/b/genai_config.json: $.model.decoder.session_options.graph_optimization_level 'ORT_ENABLE_SOME' is not "
            "one of ORT_DISABLE_ALL, ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED, ORT_ENABLE_ALL");
  doc = Flat();
  doc["model"]["decoder"]["pipeline"] = Json::parse(R"([{"s": {"filename": "s.onnx", "inputs": [], "outputs": [],
      "session_options": {"graph_optimization_level": "all"}}}])");
  doc["model"]["type"] = "decoder-pipeline";
  EXPECT_NE(ErrorOf(doc).find("$.model.decoder.pipeline.s.session_options.graph_optimization_level 'all'"),
            std::string::npos);
}

TEST(GenaiConfigTest, UnknownKeysAreListedWithTheirPathAndIgnored) {
  EXPECT_EQ(ParseGenaiConfig(Flat(), "/b", "genai_config.json").unknown_keys,
            std::vector<std::string>{"model.decoder.some_future_key"});
  Json doc = Flat();
  doc["model"]["type"] = "decoder-pipeline";
  doc["model"]["decoder"].erase("some_future_key");
  doc["model"]["decoder"]["pipeline"] = Json::parse(R"([{"ctx": {"filename": "c.onnx", "inputs": [], "outputs": [],
      "inherit_session_options": true, "stage_color": "red",
      "session_options": {"session.y": "1", "threads": 4}}}])");
  doc["top_level"] = 1;
  doc["model"]["color"] = "blue";
  doc["model"]["decoder"]["inputs"] = Json::parse(R"({"input_ids": "ids", "seq_lens": "s"})");
  doc["model"]["decoder"]["outputs"] = Json::parse(R"({"logits": "l", "present_key_names": "p.%d.k", "extra": "e"})");
  doc["model"]["decoder"]["session_options"]["enable_profiling"] = "prof";  // genai's own key
  doc["model"]["decoder"]["session_options"]["lots"] = Json::object();      // not a string: not a config entry
  doc["search"]["beam_width"] = 2;
  doc["search"]["length_penalty"] = 1.0;                                 // genai's key, unused here
  doc["model"]["vision"] = Json::parse(R"({"anything": {"goes": 1}})");  // a section modelkit does not read
  const GenaiConfig config = ParseGenaiConfig(doc, "/b", "genai_config.json");
  EXPECT_EQ(config.unknown_keys,
            (std::vector<std::string>{"top_level", "model.color", "model.decoder.inputs.seq_lens",
                                      "model.decoder.outputs.extra", "model.decoder.session_options.lots",
                                      "model.decoder.pipeline.ctx.stage_color",
                                      "model.decoder.pipeline.ctx.session_options.threads", "search.beam_width"}));
  EXPECT_EQ(config.decoder.names.input_ids, "ids");  // the known keys beside them still count
  EXPECT_EQ(config.decoder.pipeline[0].session_options->config_entries.at("session.y"), "1");
}

// Every key onnxruntime-genai's model builder writes for a decoder model is known.
TEST(GenaiConfigTest, AModelBuilderConfigHasNoUnknownKeys) {
  const Json doc = Json::parse(R"({
    "model": {"bos_token_id": 151643, "context_length": 40960,
      "decoder": {"session_options": {"log_id": "onnxruntime-genai", "provider_options": [{"cuda": {"enable_cuda_graph": "0"}}],
                                      "intra_op_num_threads": 4, "graph_optimization_level": "ORT_ENABLE_ALL",
                                      "enable_cpu_mem_arena": true, "session.disable_cpu_ep_fallback": "1"},
        "filename": "model.onnx", "head_size": 128, "hidden_size": 1024,
        "inputs": {"input_ids": "input_ids", "attention_mask": "attention_mask", "position_ids": "position_ids",
                   "past_key_names": "past_key_values.%d.key", "past_value_names": "past_key_values.%d.value"},
        "outputs": {"logits": "logits", "present_key_names": "present.%d.key", "present_value_names": "present.%d.value"},
        "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8},
      "eos_token_id": [151645, 151643], "pad_token_id": 151643, "type": "qwen3", "vocab_size": 151936},
    "search": {"diversity_penalty": 0.0, "do_sample": true, "early_stopping": true, "length_penalty": 1.0,
      "max_length": 40960, "min_length": 0, "no_repeat_ngram_size": 0, "num_beams": 1, "num_return_sequences": 1,
      "past_present_share_buffer": true, "repetition_penalty": 1.0, "temperature": 0.6, "top_k": 20, "top_p": 0.95}})");
  EXPECT_TRUE(ParseGenaiConfig(doc, "/b", "genai_config.json").unknown_keys.empty());
}

}  // namespace
}  // namespace modelkit::generate
