// The generation runtime's own cost per decode step: time in each step not spent inside ORT Run calls, as a fraction
// of the step (targets: <= 10% on a tiny bundle, <= 3% on a 0.6B-shaped int4 bundle on CPU), plus prefill
// and decode tokens/s. Bundles are random-weight bundles built in a temporary directory with the builder.
//
// Usage: modelkit_generate_bench [tiny|0.6b] [new_tokens=64] [prompt_tokens=32] [threads=1]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "generate_bench_bundle.h"
#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"

namespace {

namespace fs = std::filesystem;

double Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return static_cast<double>(values[values.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string shape = argc > 1 ? argv[1] : "tiny";
  const int new_tokens = argc > 2 ? std::atoi(argv[2]) : 64;
  const int prompt_tokens = argc > 3 ? std::atoi(argv[3]) : 32;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
  const fs::path dir = fs::temp_directory_path() / ("modelkit-generate-bench-" + std::to_string(getpid()));

  const modelkit::builder::BuildOptions build =
      modelkit::bench::GenerateBenchBundle(shape, dir / "bundle", prompt_tokens + new_tokens + 1);
  modelkit::bench::BuildGenerateBenchBundle(build, threads);

  modelkit::generate::LoadOptions load;
  load.load_tokenizer = false;
  const auto model = modelkit::generate::Model::Load(build.output_dir, load);
  std::vector<int32_t> prompt;
  for (int i = 0; i < prompt_tokens; ++i)
    prompt.push_back((i * 131 + 7) % static_cast<int>(build.random_spec.vocab_size));
  modelkit::generate::GenerateOptions options;
  options.max_new_tokens = new_tokens;
  options.ignore_eos = true;
  modelkit::generate::Generate(*model, prompt, options);  // warm-up
  const auto result = modelkit::generate::Generate(*model, prompt, options);
  const auto& t = result.timings;

  int64_t step_total = 0, ort_total = 0;
  std::vector<int64_t> overhead;
  for (size_t i = 0; i < t.decode_step_ns.size(); ++i) {
    step_total += t.decode_step_ns[i];
    ort_total += t.decode_ort_ns[i];
    overhead.push_back(t.decode_step_ns[i] - t.decode_ort_ns[i]);
  }
  const double steps = static_cast<double>(t.decode_step_ns.size());
  std::printf("bundle: %s (%s), %d prompt tokens, %d new tokens, intra_op_num_threads %d\n", shape.c_str(),
              shape == "0.6b" ? "int4" : "fp32", prompt_tokens, new_tokens, threads);
  std::printf("prefill: %.3f ms (%.1f tokens/s)\n", t.prefill_ns / 1e6, prompt_tokens * 1e9 / t.prefill_ns);
  std::printf("decode: %.0f steps, mean step %.3f ms, median step %.3f ms, %.1f tokens/s\n", steps,
              step_total / steps / 1e6, Median(t.decode_step_ns) / 1e6, steps * 1e9 / step_total);
  std::printf("runtime overhead outside ORT Run: mean %.1f us/step, median %.1f us/step = %.2f%% of the step\n",
              (step_total - ort_total) / steps / 1e3, Median(overhead) / 1e3,
              100.0 * static_cast<double>(step_total - ort_total) / static_cast<double>(step_total));
  fs::remove_all(dir);
  return 0;
}
