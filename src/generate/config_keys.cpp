#include "config_keys.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "modelkit/bundle/genai_config.h"

namespace modelkit::generate {
namespace {

using Json = nlohmann::ordered_json;
using Keys = std::span<const std::string_view>;

// Transcribed from onnxruntime-genai's src/config.cpp (Root_Element, Model_Element, Decoder_Element,
// DecoderInputs_Element, DecoderOutputs_Element, SlidingWindow_Element, SessionOptions_Element,
// PipelineModel_Element, Search_Element), 0.15 up to the MTP/engine additions: a key any of them accepts is known.
// clang-format off
constexpr std::string_view kRoot[] = {"model", "search", "speculative", "engine"};

constexpr std::string_view kModel[] = {
    "type", "tokenizer_dir", "vocab_size", "context_length", "pad_token_id", "eos_token_id", "bos_token_id",
    "decoder_start_token_id", "sep_token_id", "image_token_id", "audio_token_id", "boa_token_id", "video_token_id",
    "vision_start_token_id", "num_mels", "fft_size", "hop_length", "win_length", "preemph", "log_eps", "norm_eps",
    "subsampling_factor", "left_context", "conv_context", "pre_encode_cache_size", "sample_rate", "chunk_samples",
    "blank_id", "max_symbols_per_step", "left_context_samples", "right_context_samples", "bot_token_id",
    "eot_token_id", "bor_token_id", "eor_token_id", "tdt_durations",
    // Sections of other model kinds, not looked into.
    "encoder", "decoder", "draft", "vision", "embedding", "speech", "joiner", "vad", "mtp", "dflash2", "dspark"};

constexpr std::string_view kDecoder[] = {
    "filename", "hidden_size", "num_attention_heads", "num_hidden_layers", "num_key_value_heads", "head_size",
    "state_update_capacity", "conv_cache_size", "ple_token_pad_id", "session_options", "run_options", "inputs",
    "outputs", "sliding_window", "pipeline", "layer_types", "shared_initializers", "state_groups"};

constexpr std::string_view kDecoderInputs[] = {
    "input_ids", "inputs_embeds", "attention_mask", "position_ids", "past_key_names", "past_value_names",
    "past_key_scale_names", "past_value_scale_names", "past_names", "cross_past_key_names", "cross_past_value_names",
    "past_sequence_length", "current_sequence_length", "total_sequence_length", "encoder_hidden_states",
    "encoder_attention_mask", "rnn_states_prev", "past_key_values_length", "cache_indirection",
    "cumulative_sequence_lengths", "past_sequence_lengths", "block_table", "block_table_windowed",
    "attention_metadata", "past_conv_names", "past_recurrent_names", "past_ple_token_names", "past_ple_conv_names",
    "past_indexer_names", "state_update_capture_count", "state_update_active", "hidden_states", "targets",
    "lstm_hidden_state", "lstm_cell_state", "per_layer_inputs", "targets_length"};

constexpr std::string_view kDecoderOutputs[] = {
    "logits", "present_key_names", "present_value_names", "present_key_scale_names", "present_value_scale_names",
    "present_names", "output_cross_qk_names", "rnn_states", "present_conv_names", "present_recurrent_names",
    "present_ple_token_names", "present_ple_conv_names", "present_indexer_names", "state_update_conv_value_names",
    "state_update_recurrent_capsule_names", "hidden_states", "aux_hidden_states", "outputs", "lstm_hidden_state",
    "lstm_cell_state", "outputs_length"};

constexpr std::string_view kSlidingWindow[] = {
    "window_size", "pad_value", "alignment", "slide_key_value_cache", "slide_inputs", "cache_slack", "layers"};

// Keys with a meaning of their own; any other string-valued key is a session config entry.
constexpr std::string_view kSessionOptions[] = {
    "log_id", "enable_profiling", "intra_op_num_threads", "inter_op_num_threads", "log_severity_level",
    "log_verbosity_level", "enable_cpu_mem_arena", "enable_mem_pattern", "graph_optimization_level",
    "custom_ops_library", "provider_options"};

constexpr std::string_view kStage[] = {
    "filename", "run_on_prompt", "run_on_token_gen", "is_lm_head", "inherit_session_options", "reset_session_idx",
    "session_options", "run_options", "output_names_forwarder", "inputs", "outputs"};

constexpr std::string_view kSearch[] = {
    "min_length", "max_length", "batch_size", "num_beams", "num_return_sequences", "top_k", "top_p", "temperature",
    "repetition_penalty", "length_penalty", "no_repeat_ngram_size", "diversity_penalty", "random_seed", "chunk_size",
    "do_sample", "past_present_share_buffer", "early_stopping", "blank_penalty"};
// clang-format on

bool Contains(Keys keys, std::string_view key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); }

std::string Child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

const Json* ObjectAt(const Json& owner, const char* key) {
  const auto it = owner.find(key);
  return it != owner.end() && it->is_object() ? &*it : nullptr;
}

class UnknownKeys {
 public:
  // Records the keys of `object` (at `path`) that are not in `known`.
  void Check(const Json& object, const std::string& path, Keys known) {
    for (const auto& [key, value] : object.items()) {
      if (!Contains(known, key)) found_.push_back(Child(path, key));
    }
  }
  void CheckChild(const Json& owner, const std::string& path, const char* key, Keys known) {
    if (const Json* child = ObjectAt(owner, key)) Check(*child, Child(path, key), known);
  }
  void CheckSessionOptions(const Json& owner, const std::string& path) {
    const Json* options = ObjectAt(owner, "session_options");
    if (options == nullptr) return;
    for (const auto& [key, value] : options->items()) {
      if (!value.is_string() && !Contains(kSessionOptions, key))
        found_.push_back(Child(path, "session_options." + key));
    }
  }
  std::vector<std::string> Take() { return std::move(found_); }

 private:
  std::vector<std::string> found_;
};

}  // namespace

std::vector<std::string> UnknownGenaiConfigKeys(const Json& document) {
  UnknownKeys unknown;
  if (!document.is_object()) return {};
  unknown.Check(document, "", kRoot);
  if (const Json* model = ObjectAt(document, "model")) {
    unknown.Check(*model, "model", kModel);
    if (const Json* decoder = ObjectAt(*model, "decoder")) {
      const std::string path = "model.decoder";
      unknown.Check(*decoder, path, kDecoder);
      unknown.CheckChild(*decoder, path, "inputs", kDecoderInputs);
      unknown.CheckChild(*decoder, path, "outputs", kDecoderOutputs);
      unknown.CheckChild(*decoder, path, "sliding_window", kSlidingWindow);
      unknown.CheckSessionOptions(*decoder, path);
      bundle::ForEachPipelineStage(document, [&](const std::string& name, const Json& stage) {
        const std::string stage_path = path + ".pipeline." + name;
        unknown.Check(stage, stage_path, kStage);
        unknown.CheckSessionOptions(stage, stage_path);
      });
    }
  }
  unknown.CheckChild(document, "", "search", kSearch);
  return unknown.Take();
}

}  // namespace modelkit::generate
