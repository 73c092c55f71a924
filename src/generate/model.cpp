#include "modelkit/generate/model.h"

#include <algorithm>
#include <set>

#include "decode_attention_kernel.h"
#include "fp32_matmul_kernel.h"
#include "int4_matmul_kernel.h"
#include "modelkit/base/error.h"
#include "modelkit/base/file_mappings.h"
#include "modelkit/base/huge_pages.h"
#include "modelkit/base/phase.h"
#include "modelkit/base/strings.h"
#include "modelkit/bundle/genai_config.h"
#include "modelkit/ort/placement.h"
#include "modelkit/ort/runtime.h"
#include "session_factory.h"
#include "stage_rewrites.h"

namespace modelkit::generate {
namespace {

std::set<std::string> KvNames(const DecoderConfig& decoder, bool past) {
  std::set<std::string> names;
  for (int64_t l = 0; l < decoder.num_hidden_layers; ++l) {
    names.insert(LayerName(past ? decoder.names.past_key_names : decoder.names.present_key_names, l));
    names.insert(LayerName(past ? decoder.names.past_value_names : decoder.names.present_value_names, l));
  }
  return names;
}

// Whether `name` is a layer's past (or present) key, not value.
bool IsKeyName(const DecoderConfig& decoder, const std::string& name, bool past) {
  for (int64_t l = 0; l < decoder.num_hidden_layers; ++l) {
    if (name == LayerName(past ? decoder.names.past_key_names : decoder.names.present_key_names, l)) return true;
  }
  return false;
}

bool IsManagedInput(const TensorNames& names, const std::string& name) {
  return name == names.input_ids || name == names.attention_mask || name == names.position_ids ||
         name == names.past_sequence_length || name == names.current_sequence_length ||
         name == names.total_sequence_length;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string List(const std::vector<std::string>& names) { return Join(names, ", "); }

}  // namespace

std::unique_ptr<Model> Model::Load(const std::filesystem::path& bundle_dir, const LoadOptions& options) {
  const Clock::time_point start = Clock::now();
  std::unique_ptr<Model> model(new Model());
  Clock::time_point t = Clock::now();
  model->config_ = LoadGenaiConfig(bundle_dir);
  for (const std::string& key : model->config_.unknown_keys) {
    model->warnings_.push_back("genai_config.json: unknown key '" + key + "' (ignored)");
  }
  model->load_timings_.config_ns = NanosSince(t);

  // A missing tokenizer is found before the (slow) sessions load; the tokenizer itself loads after them.
  const std::filesystem::path& tokenizer_dir = model->config_.tokenizer_dir;
  const bool tokenizer_absent = !std::filesystem::is_regular_file(tokenizer_dir / "tokenizer.json");
  const bool load_tokenizer = options.load_tokenizer && !(tokenizer_absent && options.tokenizer_optional);
  if (load_tokenizer && tokenizer_absent) {
    throw Error(ExitCode::kInvalidModel, "bundle " + bundle_dir.string() +
                                             " has no tokenizer: " + (tokenizer_dir / "tokenizer.json").string() +
                                             " is missing; copy the model's tokenizer files into the bundle");
  }

  t = Clock::now();
  static const device::EpCatalog kBuiltIn = device::EpCatalog::BuiltIn();
  model->LoadSessions(options.catalog ? *options.catalog : kBuiltIn, options);
  // Every token streams the weights the sessions now hold: back them with huge pages (counted as session loading).
  model->huge_page_bytes_ = CollapseResidentMemoryIntoHugePages();
  // ORT read the weights it repacked from its mapping of the bundle's files: those pages are not read again.
  ReleaseFileMappingsUnder(model->config_.bundle_dir);
  model->load_timings_.sessions_ns = NanosSince(t);

  // The tokenizer after the sessions: the process's peak is reached while ORT creates them, and a 150K-token
  // vocabulary's tables (~20 MiB) held then would add to it. Parsing tokenizer.json briefly takes ~70 MiB more;
  // here that lands on the sessions' steady memory, with their load-time pages already released, and stays below
  // the load's peak.
  if (load_tokenizer) {
    t = Clock::now();
    try {
      model->tokenizer_.emplace(tokenizer::Tokenizer::Load(tokenizer_dir));
    } catch (const Error& error) {
      if (error.code() == ExitCode::kInvalidModel) throw;
      throw Error(ExitCode::kInvalidModel, "bundle tokenizer: " + std::string(error.what()));
    }
    model->load_timings_.tokenizer_ns = NanosSince(t);
  }
  if (model->config_.IsPipeline()) {
    model->CheckPipelineWiring();
  } else {
    model->CheckFlatInputs();
  }
  model->CheckLayerCount();

  model->load_timings_.total_ns = NanosSince(start);
  return model;
}

void Model::LoadSessions(const device::EpCatalog& catalog, const LoadOptions& options) {
  ort::SharedEnv();
  std::vector<StageConfig> stages = config_.decoder.pipeline;
  if (!config_.IsPipeline()) {
    StageConfig decoder;
    decoder.name = "decoder";
    decoder.filename = config_.decoder.filename;
    stages.push_back(decoder);
  }
  const SessionFactory factory(catalog, stages.size());
  const std::set<std::string> past_names = KvNames(config_.decoder, /*past=*/true);
  Ort::AllocatorWithDefaultOptions allocator;
  for (StageConfig& stage_config : stages) {
    const Clock::time_point t = Clock::now();
    LoadedStage stage;
    const SessionOptionsConfig& session_options =
        stage_config.session_options ? *stage_config.session_options : config_.decoder.session_options;
    const std::string where = config_.IsPipeline()
                                  ? "pipeline stage '" + stage_config.name + "' (" + stage_config.filename + ")"
                                  : "model.decoder (" + stage_config.filename + ")";
    {
      const ScopedPhase phase("loading stage " + stage_config.name);
      const std::filesystem::path model = config_.bundle_dir / stage_config.filename;
      StageRewriteRequest request;
      if (options.last_position_logits) request.last_position_logits = config_.decoder.names.logits;
      const auto choice = session_options.config_entries.find(bundle::kInt4CpuKernelEntry);
      const bool bundle_opts_out = choice != session_options.config_entries.end() && choice->second == "0";
      const bool cpu_ep = factory.RequestedEp(session_options, where) == report::kCpuEpName;
      request.int4_matmul = options.int4_cpu_kernel.value_or(!bundle_opts_out) && Int4KernelSupported() && cpu_ep;
      request.fp32_matmul = options.fp32_cpu_kernel && Fp32KernelSupported() && cpu_ep;
      request.decode_attention = options.attention_cpu_kernel && DecodeAttentionSupported() && cpu_ep;
      const std::optional<RewrittenStage> rewritten = RewriteStageModel(model, request);
      if (rewritten) {
        stage.last_position_logits = rewritten->last_position_logits;
        stage.int4_matmul_nodes = rewritten->int4_matmul_nodes;
        stage.fp32_matmul_nodes = rewritten->fp32_matmul_nodes;
        stage.attention_nodes = rewritten->attention_nodes;
      }
      stage.session = rewritten ? factory.CreateFromBytes(rewritten->model, model, session_options, where)
                                : factory.Create(model, session_options, where);
    }
    stage.placement =
        ort::ReadPlacement(*stage.session, stage_config.name, factory.RequestedEp(session_options, where));
    const SessionFactory::Threading threading = factory.ThreadingOf(session_options);
    stage.intra_op_threads = threading.intra_op_threads;
    stage.intra_op_spinning = threading.spinning;
    stage.intra_op_shared_pool = threading.shared_pool;
    for (size_t i = 0; i < stage.session->GetInputCount(); ++i) {
      const std::string name = stage.session->GetInputNameAllocated(i, allocator).get();
      stage.session_inputs.push_back(name);
      if (past_names.count(name) && !has_kv_) {
        const Ort::TypeInfo type_info = stage.session->GetInputTypeInfo(i);  // owns what `info` views
        const auto info = type_info.GetTensorTypeAndShapeInfo();
        kv_type_ = info.GetElementType();
        const std::vector<int64_t> shape = info.GetShape();
        if (!shape.empty() && shape.size() != 4) {
          throw Error(ExitCode::kInvalidModel, where + ": KV input '" + name + "' is not 4-D");
        }
        if (!config_.decoder.sliding_window) {  // the windowed layout's are checked per stage below
          if (shape.size() == 4) CheckKvShape(shape, name, where);
          if (shape.size() == 4 && shape[2] > 0) fixed_kv_length_ = shape[2];
        }
        has_kv_ = true;
      }
    }
    if (config_.decoder.sliding_window) CheckWindowedKv(*stage.session, stage_config, where);
    for (const Ort::ConstMemoryInfo& memory : stage.session->GetMemoryInfoForInputs()) {
      if (memory && memory.GetDeviceType() != OrtMemoryInfoDeviceType_CPU) stage.binds_to_device = true;
    }
    for (size_t i = 0; i < stage.session->GetOutputCount(); ++i) {
      stage.session_outputs.push_back(stage.session->GetOutputNameAllocated(i, allocator).get());
    }
    if (!config_.IsPipeline()) {
      stage_config.inputs = stage.session_inputs;
      stage_config.outputs = stage.session_outputs;
    }
    stage.config = std::move(stage_config);
    load_timings_.session_ns.emplace_back(stage.config.name, NanosSince(t));
    stages_.push_back(std::move(stage));
  }
}

void Model::CheckFlatInputs() const {
  const LoadedStage& stage = stages_.front();
  const std::set<std::string> past = KvNames(config_.decoder, true);
  const std::string where = config_.bundle_dir.string() + "/" + stage.config.filename;
  for (const std::string& input : stage.session_inputs) {
    if (!IsManagedInput(config_.decoder.names, input) && !past.count(input)) {
      throw Error(ExitCode::kInvalidModel,
                  where + ": input '" + input +
                      "' is not one the config names (model.decoder.inputs: input_ids, attention_mask, position_ids, "
                      "past_key_names/past_value_names for " +
                      std::to_string(config_.decoder.num_hidden_layers) + " layers)");
    }
  }
  if (!Contains(stage.session_inputs, config_.decoder.names.input_ids)) {
    throw Error(ExitCode::kInvalidModel,
                where + ": has no input '" + config_.decoder.names.input_ids + "' (model.decoder.inputs.input_ids)");
  }
  if (!Contains(stage.session_outputs, config_.decoder.names.logits)) {
    throw Error(ExitCode::kInvalidModel,
                where + ": has no output '" + config_.decoder.names.logits + "' (model.decoder.outputs.logits)");
  }
}

void Model::CheckKvShape(const std::vector<int64_t>& shape, const std::string& input, const std::string& where) const {
  // KV buffers are [batch, num_key_value_heads, length, head_size], sized from genai_config.json; a model whose fixed
  // dimensions say otherwise would fail on its first Run with ORT's "invalid dimensions" and no hint of the cause.
  const DecoderConfig& decoder = config_.decoder;
  const auto check = [&](int64_t model_value, int64_t config_value, const char* field) {
    if (model_value > 0 && model_value != config_value) {
      throw Error(ExitCode::kInvalidModel, config_.bundle_dir.string() + "/genai_config.json: model.decoder." + field +
                                               " is " + std::to_string(config_value) + " but " + where +
                                               " declares KV input '" + input + "' with " +
                                               std::to_string(model_value) + "; set it to the model's value");
    }
  };
  check(shape[1], decoder.num_key_value_heads, "num_key_value_heads");
  check(shape[3], decoder.head_size, "head_size");
}

void Model::CheckWindowedKv(const Ort::Session& session, const StageConfig& stage, const std::string& where) const {
  // onnxruntime-genai's windowed cache: keys [kv_heads, 1, head_size, slots], values [kv_heads, 1, slots, head_size],
  // slots = context_length - window (window_size on the prompt, 1 on token generation); presents of one window.
  const DecoderConfig& decoder = config_.decoder;
  const int64_t context = config_.context_length, window = decoder.sliding_window->window_size;
  const std::string config_path = config_.bundle_dir.string() + "/genai_config.json";
  const auto check = [&](const std::string& name, const Ort::TypeInfo& type_info, bool key, int64_t length,
                         const char* phase) {
    const auto info = type_info.GetTensorTypeAndShapeInfo();
    const ONNXTensorElementDataType type = info.GetElementType();
    if (type != kv_type_) {
      throw Error(ExitCode::kInvalidModel,
                  where + ": KV tensor '" + name +
                      "' has another element type than the first KV input; the windowed cache needs one type "
                      "(uint8 as onnxruntime-genai requires, or fp32/fp16/bf16)");
    }
    const std::vector<int64_t> shape = info.GetShape();
    const std::vector<int64_t> wanted =
        key ? std::vector<int64_t>{decoder.num_key_value_heads, 1, decoder.head_size, length}
            : std::vector<int64_t>{decoder.num_key_value_heads, 1, length, decoder.head_size};
    bool fits = shape.size() == 4;
    for (size_t d = 0; fits && d < 4; ++d) fits = shape[d] < 0 || wanted[d] < 0 || shape[d] == wanted[d];
    if (!fits) {
      std::string dims;
      for (const int64_t d : wanted)
        dims += (dims.empty() ? "" : ", ") + (d < 0 ? std::string("?") : std::to_string(d));
      throw Error(ExitCode::kInvalidModel, where + ": KV tensor '" + name + "' must be [" + dims + "] " + phase +
                                               " with " + config_path + " (sliding_window.window_size " +
                                               std::to_string(window) + ", context_length " + std::to_string(context) +
                                               ", num_key_value_heads, head_size); check those keys");
    }
  };
  // The prompt stage's cache has context - window slots and presents of a window, the token stage's context - 1 and
  // one; a stage with KV that runs in both phases (the flat decoder) would need both shapes at once.
  const std::set<std::string> past_names = KvNames(decoder, true), present_names = KvNames(decoder, false);
  Ort::AllocatorWithDefaultOptions allocator;
  bool has_kv = false;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    has_kv = has_kv || past_names.count(session.GetInputNameAllocated(i, allocator).get()) > 0;
  }
  const bool both = stage.run_on_prompt && stage.run_on_token_gen;
  if (has_kv && both) {
    throw Error(ExitCode::kInvalidModel,
                config_path +
                    ": model.decoder.sliding_window needs the KV cache in a prompt stage and a token-"
                    "generation stage of a decoder-pipeline (run_on_prompt / run_on_token_gen), but " +
                    where + " holds it and runs in both phases");
  }
  const int64_t past = stage.run_on_prompt ? context - window : context - 1;
  const int64_t present = stage.run_on_prompt ? window : 1;
  const char* phase = stage.run_on_prompt ? "on the prompt" : "on token generation";
  if (kv_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 && kv_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT &&
      kv_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 && kv_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16) {
    throw Error(ExitCode::kInvalidModel, where + ": the KV cache's element type is not uint8, fp32, fp16 or bf16");
  }
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    const std::string name = session.GetInputNameAllocated(i, allocator).get();
    if (!past_names.count(name)) continue;
    check(name, session.GetInputTypeInfo(i), IsKeyName(decoder, name, true), past, phase);
  }
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    const std::string name = session.GetOutputNameAllocated(i, allocator).get();
    if (!present_names.count(name)) continue;
    check(name, session.GetOutputTypeInfo(i), IsKeyName(decoder, name, false), present, phase);
  }
}

void Model::CheckLayerCount() const {
  // The KV cache is sized from num_hidden_layers: every layer's past must be an input of some session and its present
  // an output, and no session may take a past for a layer beyond it (a wrong count fails here, not in Run).
  std::set<std::string> inputs;
  std::set<std::string> outputs;
  for (const LoadedStage& stage : stages_) {
    inputs.insert(stage.session_inputs.begin(), stage.session_inputs.end());
    outputs.insert(stage.session_outputs.begin(), stage.session_outputs.end());
  }
  const DecoderConfig& decoder = config_.decoder;
  int64_t layers_in_model = 0;
  while (inputs.count(LayerName(decoder.names.past_key_names, layers_in_model))) ++layers_in_model;
  const auto mismatch = [&](const std::string& missing) {
    return Error(ExitCode::kInvalidModel, config_.bundle_dir.string() +
                                              "/genai_config.json: model.decoder.num_hidden_layers is " +
                                              std::to_string(decoder.num_hidden_layers) + " but the model has " +
                                              std::to_string(layers_in_model) + " layers of KV cache (" + missing +
                                              "); set it to the model's layer count");
  };
  for (int64_t layer = 0; layer < decoder.num_hidden_layers; ++layer) {
    for (const std::string& past :
         {LayerName(decoder.names.past_key_names, layer), LayerName(decoder.names.past_value_names, layer)}) {
      if (!inputs.count(past)) throw mismatch("no input '" + past + "'");
    }
    for (const std::string& present :
         {LayerName(decoder.names.present_key_names, layer), LayerName(decoder.names.present_value_names, layer)}) {
      if (!outputs.count(present)) throw mismatch("no output '" + present + "'");
    }
  }
  const std::string beyond = LayerName(decoder.names.past_key_names, decoder.num_hidden_layers);
  if (inputs.count(beyond)) throw mismatch("an input '" + beyond + "' beyond the last layer");
}

void Model::CheckPipelineWiring() const {
  const std::string config_path = config_.bundle_dir.string() + "/genai_config.json";
  int lm_heads = 0;
  for (const LoadedStage& stage : stages_) {
    const StageConfig& c = stage.config;
    const std::string where = config_path + ": pipeline stage '" + c.name + "' (" + c.filename + ")";
    for (const std::string& input : c.inputs) {
      if (!Contains(stage.session_inputs, input)) {
        throw Error(
            ExitCode::kInvalidModel,
            where + " lists input '" + input + "' that the model does not have; it has " + List(stage.session_inputs));
      }
    }
    for (const std::string& input : stage.session_inputs) {
      if (!Contains(c.inputs, input)) {
        throw Error(ExitCode::kInvalidModel,
                    where + ": the model's input '" + input + "' is missing from the stage's \"inputs\" list");
      }
    }
    for (const std::string& output : c.outputs) {
      if (!Contains(stage.session_outputs, output)) {
        throw Error(ExitCode::kInvalidModel, where + " lists output '" + output +
                                                 "' that the model does not have; it has " +
                                                 List(stage.session_outputs));
      }
    }
    if (c.is_lm_head && ++lm_heads > 1) {
      throw Error(ExitCode::kInvalidModel,
                  where + ": is_lm_head is true for more than one stage; exactly one stage is the lm_head");
    }
  }
  // Each phase runs its own stages in order: every input a stage needs comes from a stage before it in the same
  // phase (or is managed: ids, mask, positions, lengths, past KV), and exactly one stage of the phase makes logits.
  const std::set<std::string> past = KvNames(config_.decoder, true);
  const std::set<std::string> present = KvNames(config_.decoder, false);
  const std::string& logits = config_.decoder.names.logits;
  for (const bool prompt : {true, false}) {
    const std::string phase = prompt ? "the prompt (run_on_prompt)" : "token generation (run_on_token_gen)";
    std::set<std::string> produced;
    std::vector<std::string> logits_stages;
    for (const LoadedStage& stage : stages_) {
      const StageConfig& c = stage.config;
      if (!(prompt ? c.run_on_prompt : c.run_on_token_gen)) continue;
      for (const std::string& input : c.inputs) {
        if (IsManagedInput(config_.decoder.names, input) || past.count(input) || produced.count(input)) continue;
        throw Error(ExitCode::kInvalidModel, config_path + ": pipeline stage '" + c.name + "' needs input '" + input +
                                                 "' that no earlier stage running on " + phase +
                                                 " outputs (check outputs, output_names_forwarder, run_on_prompt "
                                                 "and run_on_token_gen of the stages before it)");
      }
      for (const std::string& output : c.outputs) {
        if (output == logits) logits_stages.push_back("'" + c.name + "'");
        if (present.count(output) || output == logits) continue;
        const auto forwarded = c.output_names_forwarder.find(output);
        produced.insert(forwarded == c.output_names_forwarder.end() ? output : forwarded->second);
      }
    }
    if (logits_stages.size() != 1) {
      throw Error(ExitCode::kInvalidModel,
                  config_path + ": " +
                      (logits_stages.empty()
                           ? "no pipeline stage running on " + phase + " outputs '" + logits + "'"
                           : "stages " + Join(logits_stages, ", ") + " all output '" + logits + "' on " + phase) +
                      "; exactly one must (check run_on_prompt and run_on_token_gen of the lm_head stage)");
    }
  }
}

}  // namespace modelkit::generate
