#include "modelkit/generate/config.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>

#include "config_keys.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/bundle/genai_config.h"

namespace modelkit::generate {
namespace {

using Json = nlohmann::ordered_json;

// Plain decoder types onnxruntime-genai runs with the decoder-only model, plus the generic pipeline.
constexpr std::array<const char*, 24> kKnownTypes = {
    "qwen3",    "qwen2",   "llama",       "mistral", "phi",    "phi3",    "phi3small", "phimoe",
    "gemma",    "gemma2",  "gemma3_text", "granite", "olmo",   "chatglm", "smollm3",   "nemotron",
    "ernie4_5", "gpt_oss", "qwen3_moe",   "decoder", "llama4", "phi4mm",  "gemma3",    "decoder-pipeline"};

// Reads typed keys of one JSON object, naming the file and path on error.
class Reader {
 public:
  Reader(const Json& object, std::string path, const std::string& source)
      : object_(object), path_(std::move(path)), source_(source) {}

  [[noreturn]] void Fail(const std::string& key, const std::string& what) const {
    throw Error(ExitCode::kInvalidModel, source_ + ": " + Path(key) + " " + what);
  }
  std::string Path(const std::string& key) const { return path_ + "." + key; }
  const Json* Get(const std::string& key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  bool Has(const std::string& key) const { return Get(key) != nullptr; }

  std::optional<int64_t> Int(const std::string& key) const {
    const Json* value = Get(key);
    if (!value) return std::nullopt;
    if (!value->is_number_integer()) Fail(key, "must be an integer, not " + value->dump());
    return value->get<int64_t>();
  }
  std::optional<double> Number(const std::string& key) const {
    const Json* value = Get(key);
    if (!value) return std::nullopt;
    if (!value->is_number()) Fail(key, "must be a number, not " + value->dump());
    return value->get<double>();
  }
  std::optional<bool> Bool(const std::string& key) const {
    const Json* value = Get(key);
    if (!value) return std::nullopt;
    if (!value->is_boolean()) Fail(key, "must be true or false, not " + value->dump());
    return value->get<bool>();
  }
  std::optional<std::string> String(const std::string& key) const {
    const Json* value = Get(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) Fail(key, "must be a string, not " + value->dump());
    return value->get<std::string>();
  }
  std::vector<std::string> Strings(const std::string& key) const {
    const Json* value = Get(key);
    if (!value) return {};
    if (!value->is_array()) Fail(key, "must be an array of strings");
    std::vector<std::string> result;
    for (const Json& item : *value) {
      if (!item.is_string()) Fail(key, "must be an array of strings, has " + item.dump());
      result.push_back(item.get<std::string>());
    }
    return result;
  }
  const Json* Object(const std::string& key) const {
    const Json* value = Get(key);
    if (value && !value->is_object()) Fail(key, "must be an object");
    return value;
  }
  Reader Child(const std::string& key) const { return Reader(*Object(key), Path(key), source_); }
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }

 private:
  const Json& object_;
  std::string path_;
  const std::string& source_;
};

void CheckFilename(const Reader& reader, const std::string& key, const std::string& filename) {
  const std::filesystem::path path(filename);
  const bool has_parent_ref =
      std::any_of(path.begin(), path.end(), [](const std::filesystem::path& part) { return part == ".."; });
  if (filename.empty() || path.is_absolute() || has_parent_ref) {
    reader.Fail(key, "'" + filename + "' must be a relative path inside the bundle without '..'");
  }
}

std::string ValueString(const Reader& reader, const std::string& key, const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number() || value.is_boolean()) return value.dump();
  reader.Fail(key, "must be a string, not " + value.dump());
}

SessionOptionsConfig ParseSessionOptions(const Reader& reader) {
  SessionOptionsConfig options;
  if (const Json* providers = reader.Get("provider_options")) {
    if (!providers->is_array()) reader.Fail("provider_options", "must be an array of {\"ep\": {options}} objects");
    for (size_t i = 0; i < providers->size(); ++i) {
      const Json& entry = (*providers)[i];
      const std::string key = "provider_options[" + std::to_string(i) + "]";
      if (!entry.is_object()) reader.Fail(key, "must be an object like {\"qnn\": {}}");
      for (const auto& [name, values] : entry.items()) {
        if (!values.is_object()) reader.Fail(key + "." + name, "must be an object of string options");
        ProviderConfig provider;
        provider.name = name;
        for (const auto& [option, value] : values.items()) {
          if (option == "device_filtering_options") continue;
          provider.options.emplace_back(option, ValueString(reader, key + "." + name + "." + option, value));
        }
        options.providers.push_back(std::move(provider));
      }
    }
  }
  // 0 is ORT's "choose for me"; more threads than kMaxThreads would only spend memory and time starting them.
  constexpr int64_t kMaxThreads = 1024;
  for (const char* key : {"intra_op_num_threads", "inter_op_num_threads"}) {
    const auto threads = reader.Int(key);
    if (!threads) continue;
    if (*threads < 0 || *threads > kMaxThreads) {
      reader.Fail(key, "must be in [0, " + std::to_string(kMaxThreads) + "] (0: ONNX Runtime's default)");
    }
    (std::string(key) == "intra_op_num_threads" ? options.intra_op_num_threads : options.inter_op_num_threads) =
        static_cast<int>(*threads);
  }
  options.enable_cpu_mem_arena = reader.Bool("enable_cpu_mem_arena");
  options.enable_mem_pattern = reader.Bool("enable_mem_pattern");
  options.log_id = reader.String("log_id");
  options.profile_prefix = reader.String("enable_profiling");
  if (const auto level = reader.String("graph_optimization_level")) {
    static constexpr std::pair<const char*, OptimizationLevel> kLevels[] = {
        {"ORT_DISABLE_ALL", OptimizationLevel::kDisableAll},
        {"ORT_ENABLE_BASIC", OptimizationLevel::kBasic},
        {"ORT_ENABLE_EXTENDED", OptimizationLevel::kExtended},
        {"ORT_ENABLE_ALL", OptimizationLevel::kAll}};
    const auto* known =
        std::find_if(std::begin(kLevels), std::end(kLevels), [&](const auto& entry) { return *level == entry.first; });
    if (known == std::end(kLevels)) {
      std::string names;
      for (const auto& [name, value] : kLevels) names += std::string(names.empty() ? "" : ", ") + name;
      reader.Fail("graph_optimization_level", "'" + *level + "' is not one of " + names);
    }
    options.graph_optimization_level = known->second;
  }
  return options;
}

SessionOptionsConfig ParseSessionOptionsOf(const Reader& owner) {
  if (!owner.Has("session_options")) return {};
  const Reader reader = owner.Child("session_options");
  SessionOptionsConfig options = ParseSessionOptions(reader);
  // Other string entries become session config entries (e.g. "session.use_device_allocator_for_initializers").
  const Json& object = *owner.Get("session_options");
  for (const auto& [key, value] : object.items()) {
    if (value.is_string() && key != "log_id" && key != "enable_profiling" && key != "graph_optimization_level") {
      options.config_entries[key] = value.get<std::string>();
    }
  }
  return options;
}

void ParseNames(const Reader& decoder, TensorNames& names) {
  if (decoder.Has("inputs")) {
    const Reader inputs = decoder.Child("inputs");
    const auto read = [&](const char* key, std::string& field) {
      if (auto value = inputs.String(key)) field = *value;
    };
    read("input_ids", names.input_ids);
    read("inputs_embeds", names.inputs_embeds);
    read("attention_mask", names.attention_mask);
    read("position_ids", names.position_ids);
    read("past_key_names", names.past_key_names);
    read("past_value_names", names.past_value_names);
    read("past_sequence_length", names.past_sequence_length);
    read("current_sequence_length", names.current_sequence_length);
    read("total_sequence_length", names.total_sequence_length);
    for (const char* key : {"past_key_names", "past_value_names"}) {
      const std::string& format = std::string(key) == "past_key_names" ? names.past_key_names : names.past_value_names;
      if (format.find("%d") == std::string::npos) inputs.Fail(key, "must contain %d (the layer index)");
    }
  }
  if (decoder.Has("outputs")) {
    const Reader outputs = decoder.Child("outputs");
    if (auto value = outputs.String("logits")) names.logits = *value;
    if (auto value = outputs.String("present_key_names")) names.present_key_names = *value;
    if (auto value = outputs.String("present_value_names")) names.present_value_names = *value;
    for (const char* key : {"present_key_names", "present_value_names"}) {
      const std::string& format =
          std::string(key) == "present_key_names" ? names.present_key_names : names.present_value_names;
      if (format.find("%d") == std::string::npos) outputs.Fail(key, "must contain %d (the layer index)");
    }
  }
}

StageConfig ParseStage(const Reader& reader, const std::string& name) {
  StageConfig stage;
  stage.name = name;
  const auto filename = reader.String("filename");
  if (!filename) reader.Fail("filename", "is required (the stage's ONNX file)");
  CheckFilename(reader, "filename", *filename);
  stage.filename = *filename;
  if (!reader.Has("inputs")) reader.Fail("inputs", "is required (the stage's input names)");
  if (!reader.Has("outputs")) reader.Fail("outputs", "is required (the stage's output names)");
  stage.inputs = reader.Strings("inputs");
  stage.outputs = reader.Strings("outputs");
  if (reader.Has("session_options")) stage.session_options = ParseSessionOptionsOf(reader);
  if (const Json* forwarder = reader.Object("output_names_forwarder")) {
    for (const auto& [from, to] : forwarder->items()) {
      if (!to.is_string()) reader.Fail("output_names_forwarder." + from, "must be a string");
      stage.output_names_forwarder[from] = to.get<std::string>();
    }
  }
  stage.run_on_prompt = reader.Bool("run_on_prompt").value_or(true);
  stage.run_on_token_gen = reader.Bool("run_on_token_gen").value_or(true);
  stage.is_lm_head = reader.Bool("is_lm_head").value_or(false);
  stage.reset_session_idx = static_cast<int>(reader.Int("reset_session_idx").value_or(-1));
  return stage;
}

void ParsePipeline(const Reader& decoder, const Json& document, DecoderConfig& config) {
  const Json* pipeline = decoder.Get("pipeline");
  if (!pipeline->is_array() && !pipeline->is_object()) decoder.Fail("pipeline", "must be an array of stage objects");
  if (pipeline->is_array()) {
    for (size_t i = 0; i < pipeline->size(); ++i) {
      if (!(*pipeline)[i].is_object()) decoder.Fail("pipeline[" + std::to_string(i) + "]", "must be an object");
    }
  }
  bundle::ForEachPipelineStage(document, [&](const std::string& name, const Json& stage) {
    const std::string path = decoder.Path("pipeline") + "." + name;
    config.pipeline.push_back(ParseStage(Reader(stage, path, decoder.source()), name));
  });
  if (config.pipeline.empty()) decoder.Fail("pipeline", "has no stages");
}

// model.decoder.sliding_window, with onnxruntime-genai's rules (window_size > 1, context_length >= 2 * window_size,
// pad_value a byte). modelkit runs the NPU layout onnxruntime-genai's windowed KV cache and windowed inputs
// implement coherently: sliding KV and inputs, right alignment (the default: padding before the prompt), every
// layer; the other combinations are refused naming the key.
SlidingWindowConfig ParseSlidingWindow(const Reader& decoder, int64_t context_length) {
  const Reader window = decoder.Child("sliding_window");
  SlidingWindowConfig config;
  const auto size = window.Int("window_size");
  if (!size) window.Fail("window_size", "is required (the prompt window, in tokens)");
  if (*size <= 1) window.Fail("window_size", "must be greater than 1, not " + std::to_string(*size));
  if (*size * 2 > context_length) {
    window.Fail("window_size", "is " + std::to_string(*size) + " but model.context_length (" +
                                   std::to_string(context_length) + ") must be at least twice it");
  }
  config.window_size = *size;
  const int64_t pad = window.Int("pad_value").value_or(0);
  if (pad < 0 || pad > 255) window.Fail("pad_value", "must be in 0..255 (a byte of the uint8 KV cache)");
  config.pad_value = static_cast<int>(pad);
  config.alignment = window.String("alignment").value_or("right");
  if (config.alignment != "left" && config.alignment != "right") {
    window.Fail("alignment", "must be \"left\" or \"right\", not \"" + config.alignment + "\"");
  }
  config.slide_key_value_cache = window.Bool("slide_key_value_cache").value_or(true);
  config.slide_inputs = window.Bool("slide_inputs").value_or(true);
  if (const Json* layers = window.Get("layers")) {
    if (!layers->is_array()) window.Fail("layers", "must be an array of layer indices");
    for (const Json& layer : *layers) {
      if (!layer.is_number_integer()) window.Fail("layers", "must be an array of layer indices, has " + layer.dump());
      config.layers.push_back(layer.get<int64_t>());
    }
  }
  const char* unsupported = !config.slide_key_value_cache ? "slide_key_value_cache"
                            : !config.slide_inputs        ? "slide_inputs"
                            : !config.layers.empty()      ? "layers"
                            : config.alignment != "right" ? "alignment"
                                                          : nullptr;
  if (unsupported != nullptr) {
    window.Fail(unsupported,
                "selects a sliding-window kind modelkit does not run; it runs the NPU layout "
                "(slide_key_value_cache and slide_inputs true, alignment \"right\": padding before the "
                "prompt, no layers list). \"left\" pads after the prompt, which onnxruntime-genai 0.15 "
                "attends to as if it were text");
  }
  return config;
}

// An integer or an array of integers (eos_token_id).
std::vector<int64_t> ReadIds(const Reader& reader, const std::string& key) {
  const Json* value = reader.Get(key);
  if (value->is_number_integer()) return {value->get<int64_t>()};
  if (!value->is_array()) reader.Fail(key, "must be an integer or an array of integers");
  std::vector<int64_t> ids;
  for (const Json& id : *value) {
    if (!id.is_number_integer()) reader.Fail(key, "must be an integer or an array of integers");
    ids.push_back(id.get<int64_t>());
  }
  return ids;
}

// The search keys genai_config.json's `search` shares with Hugging Face's generation_config.json (same names, same
// meaning for a decoder-only model: min_length and max_length count prompt + generated tokens).
constexpr std::array<const char*, 7> kSamplingKeys = {"do_sample", "min_length",  "max_length",        "top_k",
                                                      "top_p",     "temperature", "repetition_penalty"};

// Reads the sampling keys `reader`'s object sets, except those in `skip`, into `search`, checking their ranges.
// Keys the object does not set keep the value `search` already holds.
void ReadSamplingKeys(const Reader& reader, const std::set<std::string>& skip, SearchConfig& search) {
  const auto wanted = [&](const char* key) { return !skip.count(key) && reader.Has(key); };
  if (wanted("do_sample")) search.do_sample = *reader.Bool("do_sample");
  if (wanted("min_length")) {
    search.min_length = *reader.Int("min_length");
    if (search.min_length < 0) reader.Fail("min_length", "must be >= 0");
  }
  if (wanted("max_length")) {
    search.max_length = *reader.Int("max_length");
    if (search.max_length < 0) reader.Fail("max_length", "must be >= 0");
  }
  if (wanted("top_k")) {
    const int64_t top_k = *reader.Int("top_k");
    if (top_k < 0 || top_k > INT32_MAX) reader.Fail("top_k", "must be in [0, 2147483647] (0: no top-k limit)");
    search.top_k = static_cast<int>(top_k);
  }
  if (wanted("top_p")) {
    search.top_p = *reader.Number("top_p");
    if (search.top_p <= 0 || search.top_p > 1) reader.Fail("top_p", "must be in (0, 1]");
  }
  if (wanted("temperature")) {
    search.temperature = *reader.Number("temperature");
    if (search.temperature < 0) reader.Fail("temperature", "must be >= 0");
  }
  if (wanted("repetition_penalty")) {
    search.repetition_penalty = *reader.Number("repetition_penalty");
    if (search.repetition_penalty <= 0) reader.Fail("repetition_penalty", "must be > 0");
  }
}

bool SetsKey(const Json& document, const char* object, const char* key) {
  const auto it = document.find(object);
  if (it == document.end() || !it->is_object()) return false;
  const auto value = it->find(key);
  return value != it->end() && !value->is_null();
}

}  // namespace

int64_t GenaiConfig::MaxLength() const {
  if (search.max_length <= 0) return context_length;
  return std::min(search.max_length, context_length);
}

std::string LayerName(const std::string& format, int64_t layer) {
  std::string name = format;
  const size_t at = name.find("%d");
  if (at != std::string::npos) name.replace(at, 2, std::to_string(layer));
  return name;
}

// Far beyond any real model's layers, heads or head size; a larger value is a typo that would size buffers.
constexpr int64_t kMaxModelDimension = 1 << 20;

GenaiConfig ParseGenaiConfig(const Json& document, const std::filesystem::path& bundle_dir, const std::string& source) {
  if (!document.is_object()) throw Error(ExitCode::kInvalidModel, source + ": the document must be a JSON object");
  const Reader root(document, "$", source);
  if (!root.Has("model")) root.Fail("model", "is required");
  const Reader model = root.Child("model");
  GenaiConfig config;
  config.bundle_dir = bundle_dir;
  const auto type = model.String("type");
  if (!type) model.Fail("type", "is required (e.g. \"qwen3\" or \"decoder-pipeline\")");
  if (std::find(kKnownTypes.begin(), kKnownTypes.end(), *type) == kKnownTypes.end()) {
    model.Fail("type", "'" + *type +
                           "' is not a model type modelkit can run (decoder models such as qwen3, llama, "
                           "mistral, phi3, gemma2, or decoder-pipeline)");
  }
  config.type = *type;
  config.bos_token_id = model.Int("bos_token_id");
  config.pad_token_id = model.Int("pad_token_id");
  if (model.Has("eos_token_id")) {
    config.eos_token_ids = ReadIds(model, "eos_token_id");
  } else if (config.pad_token_id) {
    config.eos_token_ids = {*config.pad_token_id};
  }
  const auto vocab = model.Int("vocab_size");
  // Token ids and positions are int32 in ONNX Runtime GenAI's and in many models' inputs: larger values are typos.
  constexpr int64_t kMaxInt32 = 2147483647;
  if (!vocab || *vocab <= 0 || *vocab > kMaxInt32) {
    model.Fail("vocab_size", "is required and must be in 1..2147483647 (the logits width)");
  }
  config.vocab_size = *vocab;
  const auto context = model.Int("context_length");
  if (!context || *context <= 0 || *context > kMaxInt32) {
    model.Fail("context_length", "is required and must be in 1..2147483647");
  }
  config.context_length = *context;
  config.tokenizer_dir = bundle_dir;
  if (const auto dir = model.String("tokenizer_dir")) {
    CheckFilename(model, "tokenizer_dir", *dir);
    config.tokenizer_dir = bundle_dir / *dir;
  }

  if (!model.Has("decoder")) model.Fail("decoder", "is required");
  const Reader decoder = model.Child("decoder");
  DecoderConfig& dec = config.decoder;
  if (decoder.Has("sliding_window")) {
    dec.sliding_window = ParseSlidingWindow(decoder, config.context_length);
    if (!config.pad_token_id)
      model.Fail("pad_token_id", "is required by model.decoder.sliding_window (prompts are padded with it)");
  }
  dec.session_options = ParseSessionOptionsOf(decoder);
  dec.hidden_size = decoder.Int("hidden_size").value_or(0);
  dec.num_attention_heads = decoder.Int("num_attention_heads").value_or(0);
  dec.num_key_value_heads = decoder.Int("num_key_value_heads").value_or(0);
  dec.num_hidden_layers = decoder.Int("num_hidden_layers").value_or(0);
  dec.head_size = decoder.Int("head_size").value_or(0);
  for (const char* key : {"num_key_value_heads", "num_hidden_layers", "head_size"}) {
    const int64_t value = decoder.Int(key).value_or(0);
    if (value <= 0 || value > kMaxModelDimension) decoder.Fail(key, "is required and must be in 1..1048576");
  }
  for (const char* key : {"hidden_size", "num_attention_heads"}) {
    const int64_t value = decoder.Int(key).value_or(0);
    if (value < 0 || value > kMaxModelDimension) decoder.Fail(key, "must be in 0..1048576");
  }
  ParseNames(decoder, dec.names);
  if (config.IsPipeline()) {
    if (!decoder.Has("pipeline")) decoder.Fail("pipeline", "is required for type decoder-pipeline");
    ParsePipeline(decoder, document, dec);
  } else {
    const auto filename = decoder.String("filename");
    if (!filename) decoder.Fail("filename", "is required (the decoder's ONNX file)");
    CheckFilename(decoder, "filename", *filename);
    dec.filename = *filename;
  }

  if (root.Has("search")) {
    const Reader search = root.Child("search");
    SearchConfig& s = config.search;
    ReadSamplingKeys(search, /*skip=*/{}, s);
    s.num_beams = static_cast<int>(search.Int("num_beams").value_or(1));
    s.num_return_sequences = static_cast<int>(search.Int("num_return_sequences").value_or(1));
    if (const auto seed = search.Int("random_seed"); seed && *seed >= 0) s.random_seed = static_cast<uint64_t>(*seed);
    s.past_present_share_buffer = search.Bool("past_present_share_buffer").value_or(false);
    if (s.num_beams != 1)
      search.Fail("num_beams", "= " + std::to_string(s.num_beams) + ": beam search is not supported yet");
    if (s.num_return_sequences != 1) search.Fail("num_return_sequences", "must be 1 (batch 1 only)");
  }
  config.unknown_keys = UnknownGenaiConfigKeys(document);
  return config;
}

void ApplyGenerationConfig(const Json& genai_document, const Json& generation_config, const std::string& source,
                           GenaiConfig& config) {
  if (!generation_config.is_object())
    throw Error(ExitCode::kInvalidModel, source + ": the document must be a JSON object");
  const Reader generation(generation_config, "$", source);
  std::set<std::string> set_by_genai;
  for (const char* key : kSamplingKeys) {
    if (SetsKey(genai_document, "search", key)) set_by_genai.insert(key);
  }
  ReadSamplingKeys(generation, set_by_genai, config.search);
  if (!SetsKey(genai_document, "model", "eos_token_id") && generation.Has("eos_token_id")) {
    config.eos_token_ids = ReadIds(generation, "eos_token_id");
  }
}

GenaiConfig LoadGenaiConfig(const std::filesystem::path& bundle_dir) {
  const Json document = bundle::ReadGenaiConfig(bundle_dir);
  GenaiConfig config = ParseGenaiConfig(document, bundle_dir, (bundle_dir / "genai_config.json").string());
  for (const std::filesystem::path& dir : {bundle_dir, config.tokenizer_dir}) {
    const std::filesystem::path file = dir / "generation_config.json";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    const Json generation = Json::parse(ReadTextFile(file, "generation config"), nullptr, /*allow_exceptions=*/false);
    if (generation.is_discarded()) throw Error(ExitCode::kInvalidModel, file.string() + " is not valid JSON");
    ApplyGenerationConfig(document, generation, file.string(), config);
    config.generation_config_file = file;
    break;
  }
  return config;
}

}  // namespace modelkit::generate
