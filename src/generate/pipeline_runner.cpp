#include "pipeline_runner.h"

namespace modelkit::generate {

PipelineRunner::PipelineRunner(const Model& model, int64_t kv_shared_length, int64_t max_positions)
    : kv_(model.config().decoder, model.kv_type(), kv_shared_length),
      step_(model.config().decoder.names, model.config().vocab_size, max_positions),
      chain_(model, max_positions) {
  for (const LoadedStage& stage : model.stages()) {
    step_.Observe(*stage.session, "pipeline stage '" + stage.config.name + "'");
    bound_.emplace_back();
    kv_bound_.push_back(false);
    on_device_.push_back(stage.binds_to_device);
  }
}

void PipelineRunner::StageRan(size_t stage) {
  // A stage on a device took copies of its inputs when they were bound: it gets them again next run.
  if (on_device_[stage]) {
    bound_[stage] = StepTensors::Bound();
    return;
  }
  kv_bound_[stage] = true;
}

bool PipelineRunner::BindInput(Ort::IoBinding& binding, size_t stage, const std::string& name) {
  if (step_.IsManagedInput(name)) {
    step_.BindInput(binding, name, bound_[stage]);
    return true;
  }
  const auto kv = kv_.PastIndex(name);
  if (!kv) return false;
  // The shared KV buffers never move: bound once per stage.
  if (!kv_.shared() || !kv_bound_[stage]) binding.BindInput(name.c_str(), kv_.Past(*kv));
  return true;
}

bool PipelineRunner::BindOutput(Ort::IoBinding& binding, size_t stage, const std::string& name) {
  if (step_.IsLogits(name)) {
    step_.BindLogits(binding, bound_[stage]);
    return true;
  }
  const auto kv = kv_.PresentIndex(name);
  if (!kv) return false;
  if (!kv_.shared() || !kv_bound_[stage]) binding.BindOutput(name.c_str(), kv_.Present(*kv, chunk_));
  return true;
}

std::span<const float> PipelineRunner::Run(std::span<const int64_t> tokens) {
  chunk_ = static_cast<int64_t>(tokens.size());
  const bool prompt = kv_.past_length() == 0;
  step_.Prepare(tokens, kv_.past_length());
  kv_.Reserve(chunk_);
  chain_.ResetOrtTime();
  chain_.Run(prompt, *this, kv_.past_length());
  if (!prompt) chain_.DropPromptOnlyOutputs();  // outputs of prompt-only stages do not outlive a token step
  kv_.Commit(chunk_);
  return step_.LastLogits();
}

}  // namespace modelkit::generate
