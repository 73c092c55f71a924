// One layer's decode attention, ORT's GroupQueryAttention against modelkit's (decode_attention_kernel.h), side by
// side in one process: a Qwen3-0.6B-shaped node (16 query heads, 8 KV heads of 128), K/V caches of 1024 positions
// filled with random values, one decode step at a given position timed over and over, the two sessions taking turns.
// Prints the median microseconds per step of each, their ratio, and what the difference is over 28 layers.
// Given a bundle, it also loads it twice, with modelkit's attention kernel and with ORT's, and generates greedily
// from the same prompt with each in turn: the milliseconds of the prompt step and per decode step of each and their
// ratios (the prompt runs ORT's attention either way, inside modelkit's op or not).
//   modelkit_decode_attention_bench [THREADS=2] [STEPS=400] [BUNDLE [PROMPT_TOKENS=128] [NEW_TOKENS=64] [ROUNDS=5]]
// Asserts nothing (the bit-for-bit equality is a test: tests/integration/decode_attention_test.cpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "generate/kernel_rewrites.h"
#include "modelkit/generate/decoder_runner.h"
#include "modelkit/generate/model.h"
#include "support/attention_graph.h"
#include "support/temp_dir.h"

namespace {

using modelkit::test::AttentionRun;
using modelkit::test::AttentionShape;

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

size_t Argmax(std::span<const float> values) {
  return static_cast<size_t>(std::max_element(values.begin(), values.end()) - values.begin());
}

// One generation of `model` from `prompt`: the prompt step's milliseconds and the median of the decode steps'.
std::pair<double, double> GenerationMs(const modelkit::generate::Model& model, const std::vector<int64_t>& prompt,
                                       int new_tokens) {
  const auto runner = modelkit::generate::MakeDecoderRunner(model, static_cast<int64_t>(prompt.size()) + new_tokens);
  std::vector<int64_t> tokens = prompt;
  double prompt_ms = 0;
  std::vector<double> step_ms;
  for (int i = 0; i < new_tokens; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto logits = runner->Run(tokens);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (i == 0) {
      prompt_ms = ms;
    } else {
      step_ms.push_back(ms);
    }
    tokens = {static_cast<int64_t>(Argmax(logits))};
  }
  return {prompt_ms, Median(step_ms)};
}

// The bundle with ORT's attention and with modelkit's, one generation each in turn per round.
void CompareBundle(const char* bundle, int prompt_tokens, int new_tokens, int rounds) {
  modelkit::generate::LoadOptions load;
  load.load_tokenizer = false;
  load.tokenizer_optional = true;
  load.attention_cpu_kernel = false;
  const auto ort_model = modelkit::generate::Model::Load(bundle, load);
  load.attention_cpu_kernel = true;
  const auto own_model = modelkit::generate::Model::Load(bundle, load);
  std::mt19937 random(5);
  std::uniform_int_distribution<int64_t> token(100, 20000);
  std::vector<int64_t> prompt(static_cast<size_t>(prompt_tokens));
  for (int64_t& t : prompt) t = token(random);
  std::vector<double> ort_prompt, own_prompt, ort_step, own_step;
  for (int round = 0; round < rounds; ++round) {
    const auto [ort_prompt_ms, ort_step_ms] = GenerationMs(*ort_model, prompt, new_tokens);
    const auto [own_prompt_ms, own_step_ms] = GenerationMs(*own_model, prompt, new_tokens);
    ort_prompt.push_back(ort_prompt_ms);
    own_prompt.push_back(own_prompt_ms);
    ort_step.push_back(ort_step_ms);
    own_step.push_back(own_step_ms);
  }
  std::printf("\n%s, %d prompt tokens, %d new, %d rounds: medians of rounds, [min-max]\n", bundle, prompt_tokens,
              new_tokens, rounds);
  const auto print = [](const char* what, const std::vector<double>& ort, const std::vector<double>& own) {
    const double o = Median(ort), m = Median(own);
    std::printf("%-22s ORT's attention %8.2f [%.2f-%.2f], modelkit's %8.2f [%.2f-%.2f]: %.3fx\n", what, o,
                *std::min_element(ort.begin(), ort.end()), *std::max_element(ort.begin(), ort.end()), m,
                *std::min_element(own.begin(), own.end()), *std::max_element(own.begin(), own.end()), o / m);
  };
  print("prompt step (ms)", ort_prompt, own_prompt);
  print("decode step (ms)", ort_step, own_step);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 400;
  const AttentionShape shape{
      .num_heads = 16, .kv_num_heads = 8, .head_size = 128, .cache_length = 1024, .max_positions = 1024};
  const modelkit::test::TempDir tmp;
  const std::string original = modelkit::test::WriteAttentionGraph(tmp.path(), shape);
  const auto rewritten = modelkit::generate::UseDecodeAttentionKernel(original);
  if (!rewritten) {
    std::fprintf(stderr, "error: the attention node was not rewritten\n");
    return 1;
  }
  AttentionRun ort(original, tmp.path(), shape, threads), own(rewritten->model, tmp.path(), shape, threads);
  std::mt19937 random(3);
  std::normal_distribution<float> value(0.0f, 1.0f);
  for (AttentionRun* run : {&ort, &own}) {
    for (float& x : run->keys()) x = value(random);
    for (float& x : run->values()) x = value(random);
  }
  std::vector<float> query(static_cast<size_t>(shape.num_heads * shape.head_size));
  std::vector<float> key(static_cast<size_t>(shape.kv_num_heads * shape.head_size)), val(key.size());
  for (float& x : query) x = value(random);
  for (float& x : key) x = value(random);
  for (float& x : val) x = value(random);

  std::printf("threads %d, %d steps each, median us per step of one layer\n", threads, steps);
  std::printf("%10s %10s %10s %8s %22s\n", "position", "ORT", "modelkit", "ratio", "saved per token (28x)");
  for (const int32_t position : {16, 144, 512, 1000}) {
    std::vector<double> ort_us, own_us;
    for (int i = 0; i < steps + 20; ++i) {
      for (AttentionRun* run : {&ort, &own}) {
        const auto start = std::chrono::steady_clock::now();
        run->Step(query, key, val, 1, position);
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (i >= 20) (run == &ort ? ort_us : own_us).push_back(us);  // the first 20 warm up
      }
    }
    const double o = Median(ort_us), m = Median(own_us);
    std::printf("%10d %10.1f %10.1f %7.2fx %19.2f ms\n", position, o, m, o / m, (o - m) * 28 / 1000);
  }
  if (argc > 3) {
    CompareBundle(argv[3], argc > 4 ? std::atoi(argv[4]) : 128, argc > 5 ? std::atoi(argv[5]) : 64,
                  argc > 6 ? std::atoi(argv[6]) : 5);
  }
  return 0;
}
