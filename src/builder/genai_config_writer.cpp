#include "genai_config_writer.h"

#include "decoder_graph.h"
#include "modelkit/base/error.h"
#include "modelkit/bundle/genai_config.h"

namespace modelkit::builder {
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
          {"top_k", 50},
          {"top_p", 1.0}};
}

nlohmann::ordered_json DecoderDims(const ModelSpec& spec) {
  return {{"head_size", spec.head_dim},
          {"hidden_size", spec.hidden_size},
          {"num_attention_heads", spec.num_heads},
          {"num_hidden_layers", spec.num_layers},
          {"num_key_value_heads", spec.num_kv_heads}};
}

nlohmann::ordered_json TensorNames() {
  return {
      {"inputs",
       {{"input_ids", "input_ids"},
        {"attention_mask", "attention_mask"},
        {"past_key_names", kPastKeyFormat},
        {"past_value_names", kPastValueFormat}}},
      {"outputs",
       {{"logits", "logits"}, {"present_key_names", kPresentKeyFormat}, {"present_value_names", kPresentValueFormat}}}};
}

nlohmann::ordered_json SessionOptions(const std::string& log_id, const std::string& ep) {
  nlohmann::ordered_json providers = nlohmann::ordered_json::array();
  if (!ep.empty()) providers.push_back({{ep, nlohmann::ordered_json::object()}});
  return {{"log_id", log_id}, {"provider_options", providers}};
}

void AddModelKeys(nlohmann::ordered_json& model, const ModelSpec& spec) {
  if (spec.eos_token_ids.size() == 1) {
    model["eos_token_id"] = spec.eos_token_ids.front();
  } else if (!spec.eos_token_ids.empty()) {
    model["eos_token_id"] = spec.eos_token_ids;
  }
  if (spec.pad_token_id) model["pad_token_id"] = *spec.pad_token_id;
}

}  // namespace

nlohmann::ordered_json PipelineGenaiConfig(const ModelSpec& spec, int64_t context_length, const std::string& ep,
                                           const SlidingWindowConfig& sliding) {
  const bool windowed = sliding.window > 0;
  std::vector<std::string> past, present;
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    past.push_back(FormatLayerName(kPastKeyFormat, l));
    past.push_back(FormatLayerName(kPastValueFormat, l));
    present.push_back(FormatLayerName(kPresentKeyFormat, l));
    present.push_back(FormatLayerName(kPresentValueFormat, l));
  }
  std::vector<std::string> layer_inputs = {kEmbeddingsName, "attention_mask"};
  if (windowed) layer_inputs.push_back("position_ids");
  layer_inputs.insert(layer_inputs.end(), past.begin(), past.end());
  std::vector<std::string> layer_outputs = {kHiddenStatesName};
  layer_outputs.insert(layer_outputs.end(), present.begin(), present.end());
  const auto layers_stage = [&](const std::string& name, bool prompt) {
    return nlohmann::ordered_json{
        {"filename", name + ".onnx"}, {"inputs", layer_inputs},
        {"outputs", layer_outputs},   {"session_options", SessionOptions("onnxruntime-genai." + name, ep)},
        {"run_on_prompt", prompt},    {"run_on_token_gen", !prompt}};
  };
  nlohmann::ordered_json stages = {{"embeddings",
                                    {{"filename", "embeddings.onnx"},
                                     {"inputs", {"input_ids"}},
                                     {"outputs", {kEmbeddingsName}},
                                     {"session_options", SessionOptions("onnxruntime-genai.embeddings", "")},
                                     {"run_on_prompt", true},
                                     {"run_on_token_gen", true}}},
                                   {"ctx", layers_stage("ctx", true)},
                                   {"iter", layers_stage("iter", false)},
                                   {"lm_head",
                                    {{"filename", "lm_head.onnx"},
                                     {"inputs", {kHiddenStatesName}},
                                     {"outputs", {"logits"}},
                                     {"session_options", SessionOptions("onnxruntime-genai.lm_head", "")},
                                     {"run_on_prompt", true},
                                     {"run_on_token_gen", true},
                                     {"is_lm_head", true}}}};
  nlohmann::ordered_json decoder = {{"session_options", SessionOptions("onnxruntime-genai", "")}};
  decoder.update(DecoderDims(spec));
  decoder.update(TensorNames());
  if (windowed) {
    decoder["inputs"]["position_ids"] = "position_ids";
    decoder["sliding_window"] = {{"window_size", sliding.window},
                                 {"pad_value", sliding.pad_value},
                                 {"alignment", "right"},
                                 {"slide_key_value_cache", true},
                                 {"slide_inputs", true}};
  }
  decoder["pipeline"] = nlohmann::ordered_json::array({stages});
  nlohmann::ordered_json model;
  if (spec.bos_token_id) model["bos_token_id"] = *spec.bos_token_id;
  model["context_length"] = context_length;
  model["decoder"] = decoder;
  AddModelKeys(model, spec);
  model["type"] = "decoder-pipeline";
  model["vocab_size"] = spec.vocab_size;
  return {{"model", model}, {"search", SearchDefaults(context_length, /*share_buffer=*/!windowed)}};
}

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

void ApplyGenerationConfig(nlohmann::ordered_json& config, const nlohmann::json& generation, const std::string& file) {
  enum class Kind { kBool, kInteger, kNumber };
  static const std::pair<const char*, Kind> kKeys[] = {{"diversity_penalty", Kind::kNumber},
                                                       {"do_sample", Kind::kBool},
                                                       {"length_penalty", Kind::kNumber},
                                                       {"no_repeat_ngram_size", Kind::kInteger},
                                                       {"num_beams", Kind::kInteger},
                                                       {"num_return_sequences", Kind::kInteger},
                                                       {"repetition_penalty", Kind::kNumber},
                                                       {"temperature", Kind::kNumber},
                                                       {"top_k", Kind::kInteger},
                                                       {"top_p", Kind::kNumber}};
  nlohmann::ordered_json& search = config["search"];
  for (const auto& [key, kind] : kKeys) {
    const auto it = generation.find(key);
    if (it == generation.end() || it->is_null()) continue;
    const bool fits = kind == Kind::kBool      ? it->is_boolean()
                      : kind == Kind::kInteger ? it->is_number_integer()
                                               : it->is_number();
    if (!fits) {
      const char* wanted = kind == Kind::kBool ? "true or false" : kind == Kind::kInteger ? "an integer" : "a number";
      throw Error(ExitCode::kInvalidModel, file + ": $." + key + " must be " + wanted + ", not " + it->dump());
    }
    search[key] = *it;
  }
}

void RecordInt4CpuKernel(nlohmann::ordered_json& config, bool modelkits_kernel) {
  const char* value = modelkits_kernel ? "1" : "0";
  nlohmann::ordered_json& decoder = config["model"]["decoder"];
  decoder["session_options"][bundle::kInt4CpuKernelEntry] = value;
  if (!decoder.contains("pipeline")) return;
  for (nlohmann::ordered_json& entry : decoder["pipeline"]) {
    for (auto& [name, stage] : entry.items()) stage["session_options"][bundle::kInt4CpuKernelEntry] = value;
  }
}

}  // namespace modelkit::builder
