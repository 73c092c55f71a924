#include "support/build_fixtures.h"

#include <algorithm>
#include <cmath>

#include "support/flat_decoder_runner.h"

namespace modelkit::test {

builder::ModelSpec TinySpec(builder::Arch arch) {
  builder::ModelSpec spec;
  spec.arch = arch;
  spec.hidden_size = 64;
  spec.num_layers = 2;
  spec.num_heads = 4;
  spec.num_kv_heads = 2;
  spec.head_dim = arch == builder::Arch::kQwen3 ? 32 : 16;
  spec.intermediate_size = 96;
  spec.vocab_size = 256;
  spec.rope_theta = arch == builder::Arch::kQwen3 ? 1e6 : 1e4;
  spec.rms_norm_eps = 1e-6;
  spec.tie_word_embeddings = arch == builder::Arch::kQwen3;
  return spec;
}

ReferenceConfig ReferenceConfigFor(const builder::ModelSpec& spec) {
  ReferenceConfig config;
  config.hidden_size = spec.hidden_size;
  config.num_layers = spec.num_layers;
  config.num_heads = spec.num_heads;
  config.num_kv_heads = spec.num_kv_heads;
  config.head_dim = spec.head_dim;
  config.intermediate_size = spec.intermediate_size;
  config.vocab_size = spec.vocab_size;
  config.rms_norm_eps = spec.rms_norm_eps;
  config.rope_theta = spec.rope_theta;
  config.qk_norm = spec.arch == builder::Arch::kQwen3;
  config.tie_word_embeddings = spec.tie_word_embeddings;
  return config;
}

ReferenceWeights ReferenceWeightsFrom(const builder::ModelSpec& spec, const builder::WeightSource& source,
                                      const std::function<void(const std::string&, std::vector<float>&)>& transform) {
  ReferenceWeights weights;
  for (const builder::TensorRef& ref : builder::ExpectedTensors(spec)) {
    std::vector<float> values = source.Load(ref.name, ref.shape);
    if (transform) transform(ref.name, values);
    weights[ref.name] = std::move(values);
  }
  return weights;
}

LogitComparison CompareWithReference(const std::filesystem::path& bundle, ReferenceDecoder& reference,
                                     const std::vector<int64_t>& prompt, int decode_steps,
                                     int64_t shared_buffer_length) {
  FlatDecoderRunner runner(bundle, shared_buffer_length);
  return CompareRunWithReference([&](const std::vector<int64_t>& chunk) { return runner.Run(chunk); },
                                 runner.vocab_size(), reference, prompt, decode_steps);
}

LogitComparison CompareRunWithReference(const ChunkRunner& run, int64_t vocab, ReferenceDecoder& reference,
                                        const std::vector<int64_t>& prompt, int decode_steps) {
  LogitComparison result;
  std::vector<float> expected;
  const auto compare = [&](const float* actual, const std::vector<float>& wanted) {
    for (int64_t i = 0; i < vocab; ++i) {
      const double want = wanted[static_cast<size_t>(i)];
      result.max_abs_diff = std::max(result.max_abs_diff, std::fabs(static_cast<double>(actual[i]) - want));
      result.max_abs_reference = std::max(result.max_abs_reference, std::fabs(want));
    }
    const auto argmax_a = std::max_element(actual, actual + vocab) - actual;
    const auto argmax_w = std::max_element(wanted.begin(), wanted.end()) - wanted.begin();
    if (argmax_a != argmax_w) result.same_argmax = false;
    ++result.positions;
  };
  const std::vector<float> prefill = run(prompt);
  for (size_t p = 0; p < prompt.size(); ++p) {
    expected = reference.Step(prompt[p]);
    compare(prefill.data() + static_cast<int64_t>(p) * vocab, expected);
  }
  for (int step = 0; step < decode_steps; ++step) {
    const int64_t next = std::max_element(expected.begin(), expected.end()) - expected.begin();
    const std::vector<float> logits = run({next});
    expected = reference.Step(next);
    compare(logits.data(), expected);
  }
  return result;
}

}  // namespace modelkit::test
