// One generation, batch 1: prefill the prompt, then one token per step until a stop condition holds. Search
// settings come from the bundle (genai_config.json's `search`, then generation_config.json, then built-in defaults;
// LoadGenaiConfig), each overridable per call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelkit/generate/decoder_runner.h"
#include "modelkit/generate/model.h"
#include "modelkit/generate/sampling.h"
#include "modelkit/generate/stop_conditions.h"
#include "modelkit/generate/timings.h"

namespace modelkit::generate {

// Per-call overrides; unset fields take the bundle's search defaults.
struct GenerateOptions {
  std::optional<int64_t> max_new_tokens;
  std::optional<int64_t> max_length;  // capped at the context length / KV capacity
  std::optional<int64_t> min_length;
  std::optional<bool> do_sample;
  std::optional<double> temperature;
  std::optional<int> top_k;
  std::optional<double> top_p;
  std::optional<double> repetition_penalty;
  std::optional<uint64_t> seed;  // else search.random_seed, else random
  bool ignore_eos = false;       // generate until max_new_tokens / max_length (benchmarks)
};

class Generator {
 public:
  // Checks the options. `model` must outlive the generator.
  Generator(const Model& model, const GenerateOptions& options);

  // Creates the decoder runner, whose KV cache holds the positions this generation can feed: prompt + max_new_tokens
  // when that is set, else the max length (a shared KV buffer sized to the whole context would make attention kernels
  // that size scratch by the buffer do work for positions never used). Creation is timed as generator creation, not
  // as prefill. Then runs `prompt` and chooses the first token; once per generator (a second call is a broken
  // invariant: abort).
  // Throws UsageError for an empty prompt or one longer than the max length. A prompt exactly as long as the max
  // length, or max_new_tokens 0, runs nothing: done() with kMaxLength / kMaxNewTokens and no tokens.
  void Prefill(std::span<const int32_t> prompt);
  // Feeds the last chosen token and chooses the next. Requires a Prefill and !done() (checked: abort otherwise).
  void Step();

  bool done() const { return stop_reason_ != StopReason::kNone; }
  StopReason stop_reason() const { return stop_reason_; }
  // Stopped because the sequence filled the model's context (context_length, or a static KV cache's length), not at
  // a shorter max_length.
  bool context_full() const;
  // Bytes of the KV cache (0 before Prefill ran the model).
  size_t kv_cache_bytes() const { return runner_ ? runner_->kv_bytes() : 0; }
  // Generated ids, including a final eos.
  const std::vector<int32_t>& generated() const { return generated_; }
  const std::vector<int32_t>& prompt() const { return prompt_; }
  const StopConditions& stop_conditions() const { return stop_; }
  // Timings so far (stage timings copied from the runner on each call, once there is one).
  const GenerationTimings& timings();

 private:
  int32_t Choose(std::span<const float> logits);
  int64_t PositionsNeeded(int64_t prompt_length) const;
  void Accept(int32_t token);

  const Model& model_;
  std::unique_ptr<DecoderRunner> runner_;
  Sampler sampler_;
  double repetition_penalty_ = 1.0;
  StopConditions stop_;
  std::vector<int32_t> prompt_;
  std::vector<int32_t> generated_;
  std::vector<int32_t> sequence_;  // prompt + generated, for the repetition penalty
  std::vector<float> scratch_;     // logits copy when they are modified before choosing
  StopReason stop_reason_ = StopReason::kNone;
  bool prefilled_ = false;
  GenerationTimings timings_;
};

struct GenerationResult {
  std::vector<int32_t> prompt_ids;
  std::vector<int32_t> generated_ids;
  std::string text;  // generated text, special tokens skipped (empty without a tokenizer)
  StopReason stop_reason = StopReason::kNone;
  bool context_full = false;  // see Generator::context_full
  size_t kv_cache_bytes = 0;  // see Generator::kv_cache_bytes
  GenerationTimings timings;
};

// Generates from `prompt`; with a tokenizer, `on_text` (when set) receives the text as it becomes final.
// `cancelled` (when set) is polled between steps; generation stops early when it returns true.
GenerationResult Generate(const Model& model, std::span<const int32_t> prompt, const GenerateOptions& options,
                          const std::function<void(std::string_view)>& on_text = {},
                          const std::function<bool()>& cancelled = {});

}  // namespace modelkit::generate
