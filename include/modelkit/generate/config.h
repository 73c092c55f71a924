// genai_config.json as typed structs: what the generation runtime consumes, with onnxruntime-genai's defaults, and
// the sampling defaults a Hugging Face generation_config.json beside it adds. Strict about the keys it reads (type and
// range, naming file and JSON path), lenient about keys it does not know: ignored, but listed
// (GenaiConfig::unknown_keys) so the user hears about them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::generate {

// One provider_options entry: a single-key object {name: {option: value}}.
struct ProviderConfig {
  std::string name;  // as written ("qnn", "QNNExecutionProvider", "simnpu", ...)
  std::vector<std::pair<std::string, std::string>> options;
};

// session_options.graph_optimization_level: ORT's four levels, mapped from their names when the config is parsed.
enum class OptimizationLevel { kDisableAll, kBasic, kExtended, kAll };

struct SessionOptionsConfig {
  std::vector<ProviderConfig> providers;  // priority order; empty means CPU
  std::optional<int> intra_op_num_threads;
  std::optional<int> inter_op_num_threads;
  std::optional<bool> enable_cpu_mem_arena;
  std::optional<bool> enable_mem_pattern;
  std::optional<OptimizationLevel> graph_optimization_level;  // ORT_DISABLE_ALL ... ORT_ENABLE_ALL
  std::optional<std::string> log_id;
  // enable_profiling: ORT's profiler writes a JSON trace named from this prefix (as onnxruntime-genai does).
  std::optional<std::string> profile_prefix;
  std::map<std::string, std::string> config_entries;  // other string entries
};

struct StageConfig {
  std::string name;
  std::string filename;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::optional<SessionOptionsConfig> session_options;  // absent: the decoder's options
  std::map<std::string, std::string> output_names_forwarder;
  bool run_on_prompt = true;
  bool run_on_token_gen = true;
  bool is_lm_head = false;
  int reset_session_idx = -1;
};

// Tensor names (model.decoder.inputs / outputs); the past/present names are printf formats with one %d.
struct TensorNames {
  std::string input_ids = "input_ids";
  std::string inputs_embeds = "inputs_embeds";
  std::string attention_mask = "attention_mask";
  std::string position_ids = "position_ids";
  std::string past_key_names = "past_key_values.%d.key";
  std::string past_value_names = "past_key_values.%d.value";
  std::string past_sequence_length = "past_sequence_length";
  std::string current_sequence_length = "current_sequence_length";
  std::string total_sequence_length = "total_sequence_length";
  std::string logits = "logits";
  std::string present_key_names = "present.%d.key";
  std::string present_value_names = "present.%d.value";
};

// model.decoder.sliding_window: the windowed static layout NPU bundles use. The prompt is padded in front with
// pad_token_id to a multiple of window_size and run one window at a time, then tokens one by one, over a KV cache
// that slides: past keys [kv_heads, 1, head_size, context_length - window], past values [kv_heads, 1,
// context_length - window, head_size] (window: window_size for the prompt, 1 after), the stage's presents (one
// window) appended at the end after each run, the oldest positions dropped.
struct SlidingWindowConfig {
  int64_t window_size = 0;
  int pad_value = 0;                // byte the uint8 cache starts filled with
  std::string alignment = "right";  // "right": the prompt ends the last window (padding first); the only one run
  bool slide_key_value_cache = true;
  bool slide_inputs = true;
  std::vector<int64_t> layers;  // per-layer sliding (Gemma-style local attention); must be empty to run
};

struct DecoderConfig {
  std::string filename;  // flat layout
  SessionOptionsConfig session_options;
  int64_t hidden_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;
  int64_t num_hidden_layers = 0;
  int64_t head_size = 0;
  TensorNames names;
  std::vector<StageConfig> pipeline;  // non-empty for decoder-pipeline
  std::optional<SlidingWindowConfig> sliding_window;
};

struct SearchConfig {
  bool do_sample = false;
  int64_t min_length = 0;
  int64_t max_length = 0;  // 0: context_length
  int num_beams = 1;
  int num_return_sequences = 1;
  int top_k = 50;
  double top_p = 1.0;
  double temperature = 1.0;
  double repetition_penalty = 1.0;
  std::optional<uint64_t> random_seed;
  bool past_present_share_buffer = false;
};

struct GenaiConfig {
  std::filesystem::path bundle_dir;
  std::string type;
  std::optional<int64_t> bos_token_id;
  std::vector<int64_t> eos_token_ids;  // from eos_token_id (int or array), else pad_token_id
  std::optional<int64_t> pad_token_id;
  int64_t vocab_size = 0;
  int64_t context_length = 0;
  std::filesystem::path tokenizer_dir;  // absolute: bundle_dir / tokenizer_dir
  DecoderConfig decoder;
  SearchConfig search;
  std::filesystem::path generation_config_file;  // the generation_config.json applied; empty when none
  // Keys onnxruntime-genai does not accept, as dotted paths ("model.decoder.foo"), in document order; ignored here.
  std::vector<std::string> unknown_keys;

  bool IsPipeline() const { return type == "decoder-pipeline"; }
  // search.max_length capped at context_length (0 means context_length).
  int64_t MaxLength() const;
};

// Parses a genai_config.json document. `source` names the file in errors. Throws Error(kInvalidModel) naming
// `source` and the JSON path for a wrong type, a missing required key, an unknown model type, an unsafe filename,
// a beam search, a `sliding_window` that is invalid or of a kind modelkit does not run (see ParseSlidingWindow in
// config.cpp), or a graph_optimization_level that is not one of ORT's names
// (listing them). Unknown keys are not errors: they are listed in unknown_keys.
GenaiConfig ParseGenaiConfig(const nlohmann::ordered_json& document, const std::filesystem::path& bundle_dir,
                             const std::string& source);

// Fills what genai_config.json leaves unset from a Hugging Face generation_config.json document. `genai_document` is
// the genai_config.json `config` was parsed from; only keys it does not set are taken, because onnxruntime-genai's
// model builder already copies generation_config.json into `search` and its runtime reads `search` alone:
//   - search keys do_sample, temperature, top_k, top_p, repetition_penalty, min_length, max_length that $.search
//     does not set;
//   - eos_token_id (one id or a list) when $.model has no eos_token_id (it replaces the pad_token_id fallback).
// Other keys (max_new_tokens, num_beams, ...) are ignored. Throws Error(kInvalidModel) naming `source` and the key for
// a used key of the wrong type or range.
void ApplyGenerationConfig(const nlohmann::ordered_json& genai_document,
                           const nlohmann::ordered_json& generation_config, const std::string& source,
                           GenaiConfig& config);

// Reads and parses <bundle_dir>/genai_config.json (UsageError when missing, Error(kInvalidModel) when malformed), then
// applies generation_config.json from the bundle directory, else from the tokenizer directory, when there is one
// (Error(kInvalidModel) when it is not JSON or a used key is bad). Precedence of each search key: genai_config.json
// `search` > generation_config.json > the SearchConfig defaults; per-call GenerateOptions override all three.
GenaiConfig LoadGenaiConfig(const std::filesystem::path& bundle_dir);

// Replaces the single %d in `format` with `layer`.
std::string LayerName(const std::string& format, int64_t layer);

}  // namespace modelkit::generate
