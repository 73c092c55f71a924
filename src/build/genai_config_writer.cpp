#include "genai_config_writer.h"

#include "decoder_graph.h"

namespace modelkit::build {
namespace {

nlohmann::ordered_json SearchDefaults(int64_t context_length, bool share_buffer) {
  return {{"diversity_penalty", 0.0},
          {"do_sample", false},
          {"early_stopping", true},
          {"length_penalty", 1.0},
          {"max_length", context_length},
          {"min_length", 0},
          {"no_repeat_ngram_size", 0},
          {"num_beams", 1},
          {"num_return_sequences", 1},
          {"past_present_share_buffer", share_buffer},
          {"repetition_penalty", 1.0},
          {"temperature", 1.0},
          {"top_k", 1},
          {"top_p", 1.0}};
}

}  // namespace

nlohmann::ordered_json FlatGenaiConfig(const ModelSpec& spec, int64_t context_length, const std::string& filename) {
  nlohmann::ordered_json decoder = {
      {"session_options", {{"log_id", "onnxruntime-genai"}, {"provider_options", nlohmann::ordered_json::array()}}},
      {"filename", filename},
      {"head_size", spec.head_dim},
      {"hidden_size", spec.hidden_size},
      {"inputs",
       {{"input_ids", "input_ids"},
        {"attention_mask", "attention_mask"},
        {"past_key_names", kPastKeyFormat},
        {"past_value_names", kPastValueFormat}}},
      {"outputs",
       {{"logits", "logits"}, {"present_key_names", kPresentKeyFormat}, {"present_value_names", kPresentValueFormat}}},
      {"num_attention_heads", spec.num_heads},
      {"num_hidden_layers", spec.num_layers},
      {"num_key_value_heads", spec.num_kv_heads}};
  nlohmann::ordered_json model;
  if (spec.bos_token_id) model["bos_token_id"] = *spec.bos_token_id;
  model["context_length"] = context_length;
  model["decoder"] = decoder;
  if (spec.eos_token_ids.size() == 1) {
    model["eos_token_id"] = spec.eos_token_ids.front();
  } else if (!spec.eos_token_ids.empty()) {
    model["eos_token_id"] = spec.eos_token_ids;
  }
  if (spec.pad_token_id) model["pad_token_id"] = *spec.pad_token_id;
  model["type"] = ArchName(spec.arch);
  model["vocab_size"] = spec.vocab_size;
  return {{"model", model}, {"search", SearchDefaults(context_length, /*share_buffer=*/true)}};
}

}  // namespace modelkit::build
