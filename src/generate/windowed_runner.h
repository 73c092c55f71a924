// The windowed layout (model.decoder.sliding_window), as onnxruntime-genai runs it: the prompt padded on the left
// with pad_token_id to a multiple of window_size and run one window at a time through the prompt stages, then one
// token per run through the token-generation stages, over a WindowedKvCache. Only the last prompt window's logits
// are used, so the lm_head stage runs on that window alone.
#pragma once

#include <vector>

#include "modelkit/generate/decoder_runner.h"
#include "stage_chain.h"
#include "windowed_inputs.h"
#include "windowed_kv_cache.h"

namespace modelkit::generate {

class WindowedRunner : public DecoderRunner, private StageFeeds {
 public:
  // `max_positions`: the most positions it feeds (at most context_length).
  WindowedRunner(const Model& model, int64_t max_positions);

  std::span<const float> Run(std::span<const int64_t> tokens) override;
  int64_t past_length() const override { return fed_; }
  int64_t last_ort_ns() const override { return chain_.ort_ns(); }
  const std::vector<StageTimings>& stage_timings() const override { return chain_.timings(); }
  size_t kv_bytes() const override { return kv_.bytes(); }

  // Prompt windows of the last prompt run (0 before one).
  int64_t prompt_windows() const { return prompt_windows_; }

 private:
  bool BindInput(Ort::IoBinding& binding, size_t stage, const std::string& name) override;
  bool BindOutput(Ort::IoBinding& binding, size_t stage, const std::string& name) override;
  void StageRan(size_t stage) override;
  void RunPrompt(std::span<const int64_t> tokens);

  // What a stage's binding holds: the versions of the inputs and of the cache it was bound with.
  struct Bound {
    uint64_t inputs = 0;  // 0: not bound (versions start at 1)
    uint64_t kv = 0;
  };

  const Model& model_;
  WindowedKvCache kv_;
  WindowedInputs inputs_;
  StageChain chain_;
  int64_t window_size_;
  int64_t pad_token_id_;
  int64_t max_positions_;
  int64_t fed_ = 0;  // real positions fed
  int64_t prompt_windows_ = 0;
  std::vector<Bound> bound_;        // per stage
  std::vector<bool> rebinding_;     // per stage: this run binds it anew
  std::vector<bool> skip_lm_head_;  // prompt windows before the last: skip the lm_head stage
  std::vector<int64_t> window_;     // the prompt window being run
};

}  // namespace modelkit::generate
