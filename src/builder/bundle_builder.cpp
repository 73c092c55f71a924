#include "modelkit/builder/bundle_builder.h"

#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "decoder_graph.h"
#include "genai_config_writer.h"
#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/temp_dir.h"
#include "random_weights.h"
#include "safetensors.h"
#include "tokenizer_files.h"
#include "windowed_stage.h"

namespace modelkit::builder {
namespace {

namespace fs = std::filesystem;

Error Invalid(const std::string& message) { return Error(ExitCode::kInvalidModel, message); }

void CheckOptions(const BuildOptions& options) {
  if (options.output_dir.empty()) throw UsageError("-o/--output is required");
  if (options.checkpoint_dir.has_value() == options.random) {
    throw UsageError("give exactly one of --checkpoint DIR or --random");
  }
  if (options.block_size < 16 || (options.block_size & (options.block_size - 1)) != 0) {
    throw UsageError("--block-size must be a power of two >= 16 (got " + std::to_string(options.block_size) + ")");
  }
  if (options.context_length && *options.context_length <= 0) throw UsageError("--context-length must be positive");
  if (options.int4_cpu_kernel && options.precision != Precision::kInt4 &&
      options.lm_head_precision.value_or(options.precision) != Precision::kInt4) {
    throw UsageError("--cpu-int4-kernel needs int4 weights (--precision int4 or --lm-head-precision int4)");
  }
  if (!options.ep.empty() && options.layout != Layout::kPipeline) {
    throw UsageError("--ep applies to --layout pipeline only");
  }
  if (options.window != 0) {
    if (options.layout != Layout::kPipeline) throw UsageError("--window applies to --layout pipeline only");
    if (options.window < 2) {
      throw UsageError("--window must be at least 2 (got " + std::to_string(options.window) + ")");
    }
    if (options.precision == Precision::kFp16) {
      throw UsageError("--window layouts take --precision fp32 or int4 (fp16 activations are not supported there)");
    }
  } else if (options.float_kv) {
    throw UsageError("--kv-type applies to --window layouts only");
  }
  std::error_code ec;
  if (fs::exists(options.output_dir, ec)) {
    if (!fs::is_directory(options.output_dir)) {
      throw UsageError("output " + options.output_dir.string() + " exists and is not a directory");
    }
    if (!options.overwrite && !fs::is_empty(options.output_dir)) {
      throw UsageError("output directory " + options.output_dir.string() +
                       " is not empty; pass --overwrite to replace it");
    }
  }
}

// The Hugging Face generation_config.json at `path`, or an empty object when there is none ("" included).
nlohmann::json ReadGenerationConfig(const fs::path& path) {
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(path, ec)) return nlohmann::json::object();
  nlohmann::json doc = nlohmann::json::parse(ReadTextFile(path, "generation config"), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw Invalid(path.string() + " is not a JSON object");
  return doc;
}

// Fills the special token ids the checkpoint's config.json / generation_config.json did not give from the
// tokenizer, with llama's conventional ids for tokenizer-less random models.
void ResolveSpecialTokens(ModelSpec& spec, const TokenizerInfo& tokenizer, const nlohmann::json& generation_config) {
  if (const auto it = generation_config.find("eos_token_id"); it != generation_config.end()) {
    if (it->is_number_integer()) spec.eos_token_ids = {it->get<int64_t>()};
    if (it->is_array() && !it->empty() && (*it)[0].is_number_integer()) {
      spec.eos_token_ids = it->get<std::vector<int64_t>>();
    }
  }
  if (const auto it = generation_config.find("bos_token_id");
      !spec.bos_token_id && it != generation_config.end() && it->is_number_integer()) {
    spec.bos_token_id = it->get<int64_t>();
  }
  if (!spec.bos_token_id) spec.bos_token_id = tokenizer.bos_token_id;
  if (spec.eos_token_ids.empty() && tokenizer.eos_token_id) spec.eos_token_ids = {*tokenizer.eos_token_id};
  if (!spec.pad_token_id) spec.pad_token_id = tokenizer.pad_token_id;
  if (tokenizer.vocab_size == 0) {
    if (!spec.bos_token_id && spec.vocab_size > 1) spec.bos_token_id = 1;
    if (spec.eos_token_ids.empty() && spec.vocab_size > 2) spec.eos_token_ids = {2};
    if (!spec.pad_token_id) spec.pad_token_id = 0;
  }
  if (!spec.pad_token_id && !spec.eos_token_ids.empty()) spec.pad_token_id = spec.eos_token_ids.front();
}

// Removes a directory tree on scope exit unless released.
class TreeGuard {
 public:
  explicit TreeGuard(fs::path path) : path_(std::move(path)) {}
  ~TreeGuard() {
    if (!path_.empty()) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  void Release() { path_.clear(); }

 private:
  fs::path path_;
};

}  // namespace

BuildResult BuildBundle(const BuildOptions& options) {
  CheckOptions(options);
  BuildResult result;
  std::unique_ptr<WeightSource> weights;
  TokenizerInfo tokenizer;
  fs::path generation_config;
  if (options.checkpoint_dir) {
    const fs::path& dir = *options.checkpoint_dir;
    if (!fs::is_directory(dir)) throw UsageError("--checkpoint " + dir.string() + " is not a directory");
    const fs::path config_path = dir / "config.json";
    if (!fs::is_regular_file(config_path)) {
      throw Invalid("checkpoint " + dir.string() + " has no config.json (the Hugging Face model configuration)");
    }
    const nlohmann::json config = nlohmann::json::parse(ReadTextFile(config_path, "config.json"), nullptr, false);
    if (config.is_discarded()) throw Invalid(config_path.string() + " is not valid JSON");
    result.spec = SpecFromHfConfig(config, config_path.string());
    tokenizer = InspectTokenizer(options.tokenizer_dir.value_or(dir), options.tokenizer_dir.has_value());
    generation_config = options.tokenizer_dir.value_or(dir) / "generation_config.json";
    auto checkpoint = std::make_unique<SafetensorsCheckpoint>(dir);
    // Checkpoints saved without the key and without lm_head.weight share the embeddings.
    if (!config.contains("tie_word_embeddings") && !checkpoint->Contains("lm_head.weight")) {
      result.spec.tie_word_embeddings = true;
    }
    for (const TensorRef& ref : ExpectedTensors(result.spec)) {
      if (!checkpoint->Contains(ref.name)) {
        throw Invalid("checkpoint " + dir.string() + " has no tensor '" + ref.name + "' (needed by " +
                      ArchName(result.spec.arch) + " with the dimensions of config.json)");
      }
    }
    weights = std::move(checkpoint);
  } else {
    result.spec = options.random_spec;
    if (options.tokenizer_dir) {
      if (!fs::is_directory(*options.tokenizer_dir)) {
        throw UsageError("--tokenizer " + options.tokenizer_dir->string() + " is not a directory");
      }
      tokenizer = InspectTokenizer(*options.tokenizer_dir, /*required=*/true);
      generation_config = *options.tokenizer_dir / "generation_config.json";
      if (result.spec.vocab_size == 0) {
        result.spec.vocab_size = tokenizer.vocab_size;
      } else if (result.spec.vocab_size < tokenizer.vocab_size) {
        throw UsageError("--vocab-size " + std::to_string(result.spec.vocab_size) +
                         " is smaller than the tokenizer's " + std::to_string(tokenizer.vocab_size) +
                         " tokens; omit it to follow the tokenizer");
      }
    }
    ValidateSpec(result.spec, "--random", static_cast<int>(ExitCode::kUsage));
    weights = std::make_unique<RandomWeights>(result.spec, options.seed);
  }
  const nlohmann::json generation = ReadGenerationConfig(generation_config);
  ResolveSpecialTokens(result.spec, tokenizer, generation);
  result.context_length = options.context_length.value_or(
      options.random || result.spec.max_position_embeddings <= 0 ? 4096 : result.spec.max_position_embeddings);
  if (options.window > 0 && result.context_length < 2 * options.window) {
    throw UsageError("--window " + std::to_string(options.window) + " needs a context length of at least " +
                     std::to_string(2 * options.window) + " (it is " + std::to_string(result.context_length) +
                     "); lower --window or raise --context-length");
  }

  const fs::path output = fs::absolute(options.output_dir).lexically_normal();
  const fs::path parent = output.has_filename() ? output.parent_path() : output.parent_path().parent_path();
  const std::string name =
      output.has_filename() ? output.filename().string() : output.parent_path().filename().string();
  const fs::path target = parent / name;
  std::error_code ec;
  fs::create_directories(parent, ec);
  // Work in progress is named after this process, so that what a killed build left (gigabytes) goes now.
  // A replaced bundle is kept aside until the new one is in place: one left by a killed build is removed only when
  // the target exists again (otherwise it is the only copy, and stays for the user to recover).
  RemoveFoldersOfEndedProcesses(parent, "." + name + ".tmp-");
  if (fs::exists(target, ec)) RemoveFoldersOfEndedProcesses(parent, "." + name + ".old-");
  const std::string suffix = std::to_string(::getpid());
  const fs::path staging = parent / ("." + name + ".tmp-" + suffix);
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec)) throw RuntimeError("cannot create " + staging.string() + ": " + ec.message());
  TreeGuard staging_guard(staging);

  DecoderGraphOptions graph;
  graph.precision = options.precision;
  graph.lm_head_precision = options.lm_head_precision.value_or(options.precision);
  graph.embeddings_precision = options.embeddings_precision;
  if (graph.embeddings_precision == Precision::kInt4 && result.spec.hidden_size % options.block_size != 0) {
    throw UsageError("int4 embeddings need the hidden size (" + std::to_string(result.spec.hidden_size) +
                     ") to be a multiple of --block-size (" + std::to_string(options.block_size) + ")");
  }
  graph.block_size = options.block_size;
  graph.int4_symmetric = options.int4_symmetric;
  graph.int4_accuracy_level = options.int4_accuracy_level;
  graph.fuse_projections = options.fuse_projections;
  graph.context_length = result.context_length;
  BuildProgress progress(options.progress, TensorReads(result.spec, options.layout));
  nlohmann::ordered_json config_json;
  if (options.layout == Layout::kFlat) {
    result.bytes_written = WriteFlatDecoder(result.spec, *weights, graph, staging / "model.onnx", progress);
    config_json = FlatGenaiConfig(result.spec, result.context_length, "model.onnx");
  } else if (options.window > 0) {
    WindowedKv kv = EstimateKvScales(result.spec, *weights);
    kv.quantized = !options.float_kv;
    graph.ids_type = OnnxType::kInt32;  // as NPU exports feed them
    result.bytes_written += WriteEmbeddingsStage(result.spec, *weights, graph, staging / "embeddings.onnx", progress);
    result.bytes_written +=
        WriteWindowedLayersStage(result.spec, *weights, graph, kv, options.window, staging / "ctx.onnx", progress);
    result.bytes_written +=
        WriteWindowedLayersStage(result.spec, *weights, graph, kv, 1, staging / "iter.onnx", progress);
    result.bytes_written += WriteLmHeadStage(result.spec, *weights, graph, staging / "lm_head.onnx", progress);
    config_json = PipelineGenaiConfig(result.spec, result.context_length, options.ep,
                                      {options.window, 0});  // empty slots are masked: zero pages will do
  } else {
    result.bytes_written += WriteEmbeddingsStage(result.spec, *weights, graph, staging / "embeddings.onnx", progress);
    result.bytes_written += WriteLayersStage(result.spec, *weights, graph, staging / "ctx.onnx", 0, progress);
    result.bytes_written += WriteLayersStage(result.spec, *weights, graph, staging / "iter.onnx", 1, progress);
    result.bytes_written += WriteLmHeadStage(result.spec, *weights, graph, staging / "lm_head.onnx", progress);
    config_json = PipelineGenaiConfig(result.spec, result.context_length, options.ep);
  }
  ApplyGenerationConfig(config_json, generation, generation_config.string());
  if (options.int4_cpu_kernel) RecordInt4CpuKernel(config_json, *options.int4_cpu_kernel);
  const std::string config = config_json.dump(4);
  WriteFileAtomically(staging / "genai_config.json", config + "\n", /*overwrite=*/true);
  for (const fs::path& file : tokenizer.files) {
    if (!fs::copy_file(file, staging / file.filename(), fs::copy_options::overwrite_existing, ec)) {
      throw RuntimeError("cannot copy " + file.string() + " into the bundle: " + ec.message());
    }
  }

  // Swap in the finished bundle: an existing one (only with --overwrite) is moved aside first and removed after.
  const fs::path old = parent / ("." + name + ".old-" + suffix);
  const bool replacing = fs::exists(target);
  if (replacing) {
    fs::rename(target, old, ec);
    if (ec) throw RuntimeError("cannot replace " + target.string() + ": " + ec.message());
  }
  fs::rename(staging, target, ec);
  if (ec) {
    if (replacing) fs::rename(old, target);
    throw RuntimeError("cannot move the built bundle to " + target.string() + ": " + ec.message());
  }
  staging_guard.Release();
  if (replacing) fs::remove_all(old, ec);
  return result;
}

}  // namespace modelkit::builder
