// What modelkit's int4 CPU kernel does to the logits: one bundle loaded twice, int4 MatMulNBits on ORT's kernel and
// on modelkit's, fed the same tokens (the prompt, then ORT-kernel greedy tokens, teacher-forced into both so that a
// parted argmax does not change what follows). Prints, per step, the largest logit difference relative to the
// largest logit, and every step where the argmax differs with the gap between the two candidates' logits.
// With REFERENCE, a bundle of the same weights built with --int4-accuracy-level 0 (fp32 activations, no int8
// rounding of them), it also prints how far each kernel's logits are from the reference's: the int8 rounding of
// activations moves the logits of both kernels; this says whether modelkit's moves them further than ORT's.
//   modelkit_int4_kernel_logits BUNDLE [PROMPT_TOKENS=8] [STEPS=32] [REFERENCE]
// Asserts nothing; docs/performance.md records its output.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "modelkit/generate/decoder_runner.h"
#include "modelkit/generate/model.h"

namespace {

size_t Argmax(const std::vector<float>& values) {
  return static_cast<size_t>(std::max_element(values.begin(), values.end()) - values.begin());
}

// The largest |a - b| and the largest |a|.
std::pair<double, double> Difference(const std::vector<float>& a, const std::vector<float>& b) {
  double largest = 0.0, difference = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, std::fabs(static_cast<double>(a[i])));
    difference = std::max(difference, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return {difference, largest};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s BUNDLE [PROMPT_TOKENS=8] [STEPS=32] [REFERENCE]\n", argv[0]);
    return 2;
  }
  const int prompt_tokens = argc > 2 ? std::atoi(argv[2]) : 8;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 32;
  using namespace modelkit::generate;
  LoadOptions load;
  load.load_tokenizer = false;
  load.int4_cpu_kernel = false;
  const auto ort_model = Model::Load(argv[1], load);
  load.int4_cpu_kernel = true;
  const auto own_model = Model::Load(argv[1], load);
  load.int4_cpu_kernel = false;
  const auto reference_model = argc > 4 ? Model::Load(argv[4], load) : nullptr;
  size_t own_nodes = 0;
  for (const LoadedStage& stage : own_model->stages()) own_nodes += stage.int4_matmul_nodes;
  const int64_t vocab = own_model->config().vocab_size;
  std::printf("bundle %s: %zu MatMulNBits nodes on modelkit's kernel; prompt %d tokens, %d steps\n", argv[1], own_nodes,
              prompt_tokens, steps);
  const auto ort_runner = MakeDecoderRunner(*ort_model, prompt_tokens + steps + 1);
  const auto own_runner = MakeDecoderRunner(*own_model, prompt_tokens + steps + 1);
  const auto reference_runner =
      reference_model ? MakeDecoderRunner(*reference_model, prompt_tokens + steps + 1) : nullptr;
  double ort_from_reference = 0.0, own_from_reference = 0.0;
  // The bench's prompt ids (bench/generation_vs_genai.py).
  std::vector<int64_t> tokens;
  for (int i = 0; i < prompt_tokens; ++i) tokens.push_back((1000 + 7919 * int64_t{i}) % vocab);
  double worst = 0.0;
  int parted = 0;
  for (int step = 0; step <= steps; ++step) {
    const auto ort_span = ort_runner->Run(tokens);
    const std::vector<float> ort(ort_span.begin(), ort_span.end());
    const auto own_span = own_runner->Run(tokens);
    const std::vector<float> own(own_span.begin(), own_span.end());
    const auto [difference, largest] = Difference(ort, own);
    worst = std::max(worst, difference / largest);
    if (reference_runner) {
      const auto reference_span = reference_runner->Run(tokens);
      const std::vector<float> reference(reference_span.begin(), reference_span.end());
      const auto [ort_off, reference_largest] = Difference(reference, ort);
      const double own_off = Difference(reference, own).first;
      ort_from_reference = std::max(ort_from_reference, ort_off / reference_largest);
      own_from_reference = std::max(own_from_reference, own_off / reference_largest);
      std::printf("step %2d: from the fp32-activation reference: ORT's kernel %.3g, modelkit's %.3g\n", step,
                  ort_off / reference_largest, own_off / reference_largest);
    }
    const size_t ort_best = Argmax(ort), own_best = Argmax(own);
    if (ort_best != own_best) {
      ++parted;
      std::printf(
          "step %2d: argmax parts: ORT %zu, modelkit %zu; ORT's logits of the two differ by %.3g (%.2g of "
          "the largest logit)\n",
          step, ort_best, own_best, ort[ort_best] - ort[own_best], (ort[ort_best] - ort[own_best]) / largest);
    }
    std::printf("step %2d: largest |difference| %.3g = %.3g of the largest logit %.3g\n", step, difference,
                difference / largest, largest);
    tokens = {static_cast<int64_t>(ort_best)};
  }
  std::printf("worst relative difference %.3g; argmax parted at %d of %d steps\n", worst, parted, steps + 1);
  if (reference_runner) {
    std::printf("worst relative distance from the reference: ORT's kernel %.3g, modelkit's %.3g\n", ort_from_reference,
                own_from_reference);
  }
  return 0;
}
