// `modelkit build`: make a genai bundle from a Hugging Face checkpoint directory or from random weights.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "build_flags.h"
#include "commands.h"
#include "flag_checks.h"
#include "modelkit/base/error.h"
#include "modelkit/builder/bundle_builder.h"
#include "modelkit/device/ep_catalog.h"
#include "progress_bar.h"

namespace modelkit::app {
namespace {

struct BuildFlags {
  builder::BuildOptions options;
  std::string checkpoint;
  std::string tokenizer;
  std::string arch;
  int64_t hidden_size = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: = heads
  int64_t head_dim = 0;  // 0: hidden_size / heads
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;  // 0: follows --tokenizer
  double rope_theta = 0;   // 0: the architecture's default
  int64_t context_length = 0;
  std::string layout = "flat";
  std::string precision = "fp32";
  std::string lm_head_precision;
  std::string embeddings_precision = "fp32";
  bool int4_zero_points = false;
  std::string kv_type;  // --window layouts: uint8 (default) or fp32
};

void ApplyRandomFlags(BuildFlags& flags, const CLI::App& command) {
  const char* random_only[] = {"--arch",     "--hidden-size",       "--layers",     "--heads", "--kv-heads",
                               "--head-dim", "--intermediate-size", "--vocab-size", "--seed",  "--rope-theta"};
  if (!flags.options.random) {
    for (const char* flag : random_only) {
      if (command.count(flag) > 0) throw UsageError(std::string(flag) + " applies to --random only");
    }
    return;
  }
  const char* required[] = {"--arch", "--hidden-size", "--layers", "--heads", "--intermediate-size"};
  for (const char* flag : required) {
    if (command.count(flag) == 0) throw UsageError(std::string("--random needs ") + flag);
  }
  if (flags.vocab_size == 0 && flags.tokenizer.empty()) throw UsageError("--random needs --vocab-size or --tokenizer");
  const auto arch = builder::ParseArch(flags.arch);
  if (!arch) throw UsageError("--arch '" + flags.arch + "' is not supported; supported: qwen3, llama");
  builder::ModelSpec& spec = flags.options.random_spec;
  spec.arch = *arch;
  spec.hidden_size = flags.hidden_size;
  spec.num_layers = flags.layers;
  spec.num_heads = flags.heads;
  spec.num_kv_heads = flags.kv_heads > 0 ? flags.kv_heads : flags.heads;
  if (flags.head_dim == 0 && flags.heads > 0 && flags.hidden_size % flags.heads != 0) {
    throw UsageError("--hidden-size (" + std::to_string(flags.hidden_size) + ") is not a multiple of --heads (" +
                     std::to_string(flags.heads) + "); give the head dimension with --head-dim");
  }
  spec.head_dim = flags.head_dim > 0 ? flags.head_dim : (flags.heads > 0 ? flags.hidden_size / flags.heads : 0);
  spec.intermediate_size = flags.intermediate_size;
  spec.vocab_size = flags.vocab_size;
  spec.rope_theta = flags.rope_theta > 0 ? flags.rope_theta : (spec.arch == builder::Arch::kQwen3 ? 1e6 : 1e4);
  spec.tie_word_embeddings = spec.arch == builder::Arch::kQwen3;
}

// "flat", "pipeline", or "pipeline (window 64, uint8 KV)".
std::string LayoutName(const BuildFlags& flags, const builder::BuildOptions& options) {
  if (options.window == 0) return flags.layout;
  return flags.layout + " (window " + std::to_string(options.window) + ", " + (options.float_kv ? "fp32" : "uint8") +
         " KV)";
}

int RunBuild(BuildFlags& flags, const CLI::App& command) {
  builder::BuildOptions& options = flags.options;
  if (!flags.checkpoint.empty()) options.checkpoint_dir = flags.checkpoint;
  if (!flags.tokenizer.empty()) options.tokenizer_dir = flags.tokenizer;
  if (flags.context_length != 0) options.context_length = flags.context_length;
  options.layout = flags.layout == "pipeline" ? builder::Layout::kPipeline : builder::Layout::kFlat;
  options.precision = ParsePrecision(flags.precision);
  if (!flags.lm_head_precision.empty()) options.lm_head_precision = ParsePrecision(flags.lm_head_precision);
  options.embeddings_precision = ParsePrecision(flags.embeddings_precision);
  options.int4_symmetric = !flags.int4_zero_points;
  if (!flags.kv_type.empty() && options.window == 0) throw UsageError("--kv-type applies to --window layouts only");
  options.float_kv = flags.kv_type == "fp32";
  if (options.layout == builder::Layout::kPipeline) options.ep = PipelineEpKey(options.ep);
  ApplyRandomFlags(flags, command);

  ProgressBar bar("building");
  options.progress = [&bar](int64_t done, int64_t total) {
    bar.Update(static_cast<int>(done), static_cast<int>(total), " tensors");
  };
  const auto start = std::chrono::steady_clock::now();
  const builder::BuildResult result = builder::BuildBundle(options);
  bar.Finish();  // the summary line starts on a clean line
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const builder::ModelSpec& spec = result.spec;
  std::printf(
      "built %s: %s, %lld layers, hidden %lld, heads %lld/%lld, head dim %lld, vocab %lld, context %lld, "
      "%s, %s layout, %.1f MB in %.1f s\n",
      options.output_dir.string().c_str(), builder::ArchName(spec.arch).c_str(),
      static_cast<long long>(spec.num_layers), static_cast<long long>(spec.hidden_size),
      static_cast<long long>(spec.num_heads), static_cast<long long>(spec.num_kv_heads),
      static_cast<long long>(spec.head_dim), static_cast<long long>(spec.vocab_size),
      static_cast<long long>(result.context_length), flags.precision.c_str(), LayoutName(flags, options).c_str(),
      static_cast<double>(result.bytes_written) / 1e6, seconds);
  return 0;
}

}  // namespace

void RegisterBuildCommand(CLI::App& app, CommandRunner& run) {
  auto flags = std::make_shared<BuildFlags>();
  CLI::App* command =
      app.add_subcommand("build", "Make a genai bundle from a Hugging Face checkpoint or from random weights");
  builder::BuildOptions& o = flags->options;
  command->add_option("-o,--output", o.output_dir, "Bundle directory to write")->required();
  command->add_flag("--overwrite", o.overwrite, "Replace a non-empty output directory");
  command->add_option("--checkpoint", flags->checkpoint,
                      "Hugging Face checkpoint directory (config.json, *.safetensors, tokenizer files)");
  command->add_flag("--random", o.random, "Use random weights with the dimensions given below");
  command->add_option("--arch", flags->arch, "Architecture for --random: qwen3 or llama");
  command->add_option("--hidden-size", flags->hidden_size, "Hidden size (--random)");
  command->add_option("--layers", flags->layers, "Number of decoder layers (--random)");
  command->add_option("--heads", flags->heads, "Attention heads (--random)");
  command->add_option("--kv-heads", flags->kv_heads, "Key/value heads (--random; default: --heads)");
  command->add_option("--head-dim", flags->head_dim, "Head dimension (--random; default: hidden size / heads)");
  command->add_option("--intermediate-size", flags->intermediate_size, "MLP intermediate size (--random)");
  command->add_option("--vocab-size", flags->vocab_size, "Vocabulary size (--random; default: the tokenizer's)");
  command->add_option("--seed", o.seed, "Seed of the random weights")->capture_default_str();
  command->add_option("--rope-theta", flags->rope_theta, "Rotary base (--random; default: 1e6 qwen3, 1e4 llama)")
      ->check(FiniteNumber(0, kMaxRopeTheta, /*min_exclusive=*/true));
  command->add_option("--tokenizer", flags->tokenizer, "Directory of tokenizer files to copy into the bundle");
  command->add_option("--layout", flags->layout, "Bundle layout")
      ->transform(CLI::IsMember({"flat", "pipeline"}, CLI::ignore_case))
      ->capture_default_str();
  command
      ->add_option("--precision", flags->precision,
                   "fp32; fp16 (weights, activations, KV and logits); int4 (MatMulNBits weights, fp32 activations)")
      ->transform(CLI::IsMember({"fp32", "fp16", "int4"}, CLI::ignore_case))
      ->capture_default_str();
  command
      ->add_option("--lm-head-precision", flags->lm_head_precision,
                   "lm_head: int4, or fp32 = not quantised (default: --precision)")
      ->transform(CLI::IsMember({"fp32", "int4"}, CLI::ignore_case));
  command
      ->add_option("--embeddings-precision", flags->embeddings_precision,
                   "Precision of the embedding table (int4: GatherBlockQuantized)")
      ->transform(CLI::IsMember({"fp32", "int4"}, CLI::ignore_case))
      ->capture_default_str();
  command->add_option("--block-size", o.block_size, "int4 block size along K")->capture_default_str();
  command->add_flag("--int4-zero-points", flags->int4_zero_points,
                    "Asymmetric int4 with per-block zero points (default: symmetric, zero point 8)");
  command
      ->add_option("--int4-accuracy-level", o.int4_accuracy_level,
                   "MatMulNBits accuracy_level: 0 fp32 math, 4 int8 activations (faster)")
      ->check(CLI::IsMember({0, 1, 2, 3, 4}))
      ->capture_default_str();
  command
      ->add_option_function<std::string>(
          "--cpu-int4-kernel", [&o](const std::string& kernel) { o.int4_cpu_kernel = kernel == "modelkit"; },
          "Kernel modelkit runs int4 MatMulNBits with on CPUs with AVX-512 VNNI: modelkit (faster; the same logits "
          "as ORT's, bit for bit) or ort (ORT's own). Recorded in genai_config.json; default: none recorded, "
          "modelkit runs its own")
      ->transform(CLI::IsMember({"ort", "modelkit"}, CLI::ignore_case));
  command->add_flag("!--separate-projections", o.fuse_projections,
                    "Emit q/k/v and gate/up as separate MatMuls (default: one MatMul + Split each; same results, "
                    "fewer kernels)");
  command
      ->add_option("--context-length", flags->context_length,
                   "Context length (default: max_position_embeddings, 4096 for --random)")
      ->check(CLI::Range(int64_t{1}, kMaxContextLength));
  command->add_option("--ep", o.ep, "Execution provider of the ctx/iter stages (--layout pipeline)")->check(NonEmpty());
  command
      ->add_option("--window", o.window,
                   "Static NPU layout (--layout pipeline): every shape fixed, the prompt run in windows of this many "
                   "tokens over a sliding uint8 KV cache (genai_config sliding_window)")
      ->check(CLI::Range(int64_t{2}, kMaxContextLength / 2));
  command
      ->add_option("--kv-type", flags->kv_type,
                   "KV cache of a --window layout: uint8 (quantised, what NPUs run) or fp32 (no quantisation error)")
      ->transform(CLI::IsMember({"uint8", "fp32"}, CLI::ignore_case));
  command->callback([flags, command, &run] { run = [flags, command] { return RunBuild(*flags, *command); }; });
}

}  // namespace modelkit::app
