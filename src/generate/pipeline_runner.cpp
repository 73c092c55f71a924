#include "pipeline_runner.h"

#include "modelkit/base/error.h"
#include "modelkit/ort/ort_error.h"

namespace modelkit::generate {
namespace {

std::string ForwardedName(const StageConfig& stage, const std::string& output) {
  const auto it = stage.output_names_forwarder.find(output);
  return it == stage.output_names_forwarder.end() ? output : it->second;
}

}  // namespace

PipelineRunner::PipelineRunner(const Model& model, int64_t kv_shared_length, int64_t max_positions)
    : model_(model),
      kv_(model.config().decoder, model.kv_type(), kv_shared_length),
      step_(model.config().decoder.names, model.config().vocab_size, max_positions),
      memory_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {
  for (const LoadedStage& stage : model.stages()) {
    step_.Observe(*stage.session, "pipeline stage '" + stage.config.name + "'");
    bindings_.emplace_back(*stage.session);
    bound_.emplace_back();
    kv_bound_.push_back(false);
    timings_.push_back(StageTimings{stage.config.name, {}, {}});
    timings_.back().token_run_ns.reserve(static_cast<size_t>(max_positions));
  }
}

void PipelineRunner::RunStage(size_t index, bool prompt, int64_t chunk) {
  const LoadedStage& stage = model_.stages()[index];
  const StageConfig& config = stage.config;
  Ort::IoBinding& binding = bindings_[index];
  // Binding a name again replaces it in place (output order stays that of config.outputs); the shared KV
  // buffers never move, so they are bound once per stage.
  const bool bind_kv = !kv_.shared() || !kv_bound_[index];
  for (const std::string& input : config.inputs) {
    if (step_.IsManagedInput(input)) {
      step_.BindInput(binding, input, bound_[index]);
    } else if (const auto kv = kv_.PastIndex(input)) {
      if (bind_kv) binding.BindInput(input.c_str(), kv_.Past(*kv));
    } else {
      const auto it = named_.find(input);
      if (it == named_.end()) {
        throw Error(ExitCode::kInferenceFailed,
                    "pipeline stage '" + config.name + "' needs '" + input + "', which no stage produced in this step");
      }
      binding.BindInput(input.c_str(), it->second);
    }
  }
  std::vector<bool> kept(config.outputs.size(), false);
  for (size_t o = 0; o < config.outputs.size(); ++o) {
    const std::string& output = config.outputs[o];
    if (step_.IsLogits(output)) {
      step_.BindLogits(binding, bound_[index]);
    } else if (const auto kv = kv_.PresentIndex(output)) {
      if (bind_kv) binding.BindOutput(output.c_str(), kv_.Present(*kv, chunk));
    } else {
      named_.erase(ForwardedName(config, output));  // a stage's old outputs go before it re-runs
      binding.BindOutput(output.c_str(), memory_);
      kept[o] = true;
    }
  }
  const Clock::time_point start = Clock::now();
  try {
    stage.session->Run(run_options_, binding);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ExitCode::kInferenceFailed,
                       "pipeline stage '" + config.name + "' failed at position " + std::to_string(kv_.past_length()));
  }
  const int64_t elapsed = NanosSince(start);
  kv_bound_[index] = true;
  last_ort_ns_ += elapsed;
  (prompt ? timings_[index].prompt_run_ns : timings_[index].token_run_ns).push_back(elapsed);
  std::vector<Ort::Value> values = binding.GetOutputValues();
  for (size_t o = 0; o < config.outputs.size() && o < values.size(); ++o) {
    if (kept[o]) named_[ForwardedName(config, config.outputs[o])] = std::move(values[o]);
  }
}

std::span<const float> PipelineRunner::Run(std::span<const int64_t> tokens) {
  const int64_t chunk = static_cast<int64_t>(tokens.size());
  const bool prompt = kv_.past_length() == 0;
  step_.Prepare(tokens, kv_.past_length());
  kv_.Reserve(chunk);
  last_ort_ns_ = 0;
  const std::vector<LoadedStage>& stages = model_.stages();
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageConfig& config = stages[i].config;
    if (prompt ? !config.run_on_prompt : !config.run_on_token_gen) continue;
    RunStage(i, prompt, chunk);
  }
  if (!prompt) {  // outputs of prompt-only stages do not outlive a token-generation step
    for (const LoadedStage& stage : stages) {
      if (stage.config.run_on_token_gen) continue;
      for (const std::string& output : stage.config.outputs) named_.erase(ForwardedName(stage.config, output));
    }
  }
  kv_.Commit(chunk);
  return step_.LastLogits();
}

}  // namespace modelkit::generate
