#include "generate_bench_bundle.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace modelkit::bench {
namespace {

builder::ModelSpec Spec(const std::string& shape) {
  builder::ModelSpec spec;
  spec.arch = builder::Arch::kQwen3;
  if (shape == "0.6b") {  // Qwen3-0.6B's dimensions
    spec.hidden_size = 1024;
    spec.num_layers = 28;
    spec.num_heads = 16;
    spec.num_kv_heads = 8;
    spec.head_dim = 128;
    spec.intermediate_size = 3072;
    spec.vocab_size = 151936;
  } else {
    spec.hidden_size = 64;
    spec.num_layers = 2;
    spec.num_heads = 4;
    spec.num_kv_heads = 2;
    spec.head_dim = 32;
    spec.intermediate_size = 96;
    spec.vocab_size = 256;
  }
  spec.rope_theta = 1e6;
  spec.rms_norm_eps = 1e-6;
  spec.tie_word_embeddings = true;
  return spec;
}

}  // namespace

builder::BuildOptions GenerateBenchBundle(const std::string& shape, const std::filesystem::path& output_dir,
                                        int64_t context_length) {
  if (shape != "tiny" && shape != "0.6b") throw std::invalid_argument("bundle shape must be tiny or 0.6b: " + shape);
  builder::BuildOptions options;
  options.output_dir = output_dir;
  options.random = true;
  options.random_spec = Spec(shape);
  options.seed = 1;
  options.context_length = context_length;
  options.precision = shape == "0.6b" ? builder::Precision::kInt4 : builder::Precision::kFp32;
  return options;
}

void BuildGenerateBenchBundle(const builder::BuildOptions& options, int threads) {
  builder::BuildBundle(options);
  const std::filesystem::path path = options.output_dir / "genai_config.json";
  std::ifstream in(path);
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(in);
  config["model"]["decoder"]["session_options"]["intra_op_num_threads"] = threads;
  std::ofstream(path) << config.dump(4) << "\n";
}

}  // namespace modelkit::bench
