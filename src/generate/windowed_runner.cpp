#include "windowed_runner.h"

#include <algorithm>

#include "modelkit/base/check.h"

namespace modelkit::generate {

WindowedRunner::WindowedRunner(const Model& model, int64_t max_positions)
    : model_(model),
      kv_(model.config(), model.kv_type()),
      inputs_(model.config().decoder.names, model.config().vocab_size, model.config().context_length),
      chain_(model, max_positions),
      window_size_(model.config().decoder.sliding_window->window_size),
      pad_token_id_(model.config().pad_token_id.value_or(0)),
      max_positions_(max_positions) {
  MODELKIT_CHECK(max_positions <= model.config().context_length);
  for (const LoadedStage& stage : model.stages()) {
    inputs_.Observe(*stage.session, "pipeline stage '" + stage.config.name + "' (" + stage.config.filename + ")");
    bound_.emplace_back();
    rebinding_.push_back(false);
    skip_lm_head_.push_back(stage.config.is_lm_head);
  }
}

bool WindowedRunner::BindInput(Ort::IoBinding& binding, size_t stage, const std::string& name) {
  const bool inputs_changed = bound_[stage].inputs != inputs_.version();
  const bool kv_changed = bound_[stage].kv != kv_.version();
  if (inputs_.IsManagedInput(name)) {
    if (inputs_changed) binding.BindInput(name.c_str(), inputs_.Input(name));
    return true;
  }
  const auto kv = kv_.PastIndex(name);
  if (!kv) return false;
  if (kv_changed) binding.BindInput(name.c_str(), kv_.Past(*kv));
  return true;
}

bool WindowedRunner::BindOutput(Ort::IoBinding& binding, size_t stage, const std::string& name) {
  if (inputs_.IsLogits(name)) {
    if (bound_[stage].inputs != inputs_.version()) binding.BindOutput(name.c_str(), inputs_.Logits());
    return true;
  }
  const auto kv = kv_.PresentIndex(name);
  if (!kv) return false;
  if (bound_[stage].kv != kv_.version()) binding.BindOutput(name.c_str(), kv_.Present(*kv));
  return true;
}

void WindowedRunner::StageRan(size_t stage) {
  // A stage on a device took copies of its inputs when they were bound: it gets them again next run.
  bound_[stage] = model_.stages()[stage].binds_to_device ? Bound{} : Bound{inputs_.version(), kv_.version()};
}

void WindowedRunner::RunPrompt(std::span<const int64_t> tokens) {
  const int64_t length = static_cast<int64_t>(tokens.size());
  const int64_t windows = (length + window_size_ - 1) / window_size_;
  const int64_t pads = windows * window_size_ - length;
  prompt_windows_ = windows;
  window_.resize(static_cast<size_t>(window_size_));
  for (int64_t w = 0; w < windows; ++w) {
    // Window w covers padded positions [w * window, (w + 1) * window); the padding is all in window 0.
    const int64_t window_pads = w == 0 ? pads : 0;
    for (int64_t i = 0; i < window_size_; ++i) {
      const int64_t padded = w * window_size_ + i;
      window_[static_cast<size_t>(i)] = padded < pads ? pad_token_id_ : tokens[static_cast<size_t>(padded - pads)];
    }
    const int64_t position = std::max<int64_t>(0, w * window_size_ - pads);
    inputs_.Prepare(window_, window_pads, position, kv_.filled(), kv_.slots());
    const bool last = w == windows - 1;
    chain_.Run(/*prompt=*/true, *this, position, last ? std::vector<bool>{} : skip_lm_head_);
    if (last) {
      kv_.StartTokens(window_pads);
    } else {
      kv_.Append(window_pads);
    }
  }
}

std::span<const float> WindowedRunner::Run(std::span<const int64_t> tokens) {
  const int64_t chunk = static_cast<int64_t>(tokens.size());
  MODELKIT_CHECK(chunk > 0 && fed_ + chunk <= max_positions_);
  chain_.ResetOrtTime();
  if (fed_ == 0) {
    RunPrompt(tokens);
  } else {
    MODELKIT_CHECK(chunk == 1);  // after the prompt, one token per run
    inputs_.Prepare(tokens, 0, fed_, kv_.filled(), kv_.slots());
    chain_.Run(/*prompt=*/false, *this, fed_);
    chain_.DropPromptOnlyOutputs();
    // The last position a generation feeds needs no slot: nothing runs after it.
    if (fed_ + 1 < max_positions_) kv_.Append(0);
  }
  fed_ += chunk;
  return inputs_.LastLogits();
}

}  // namespace modelkit::generate
