#include "stage_chain.h"

#include "modelkit/base/error.h"
#include "modelkit/ort/ort_error.h"

namespace modelkit::generate {
namespace {

std::string ForwardedName(const StageConfig& stage, const std::string& output) {
  const auto it = stage.output_names_forwarder.find(output);
  return it == stage.output_names_forwarder.end() ? output : it->second;
}

}  // namespace

StageChain::StageChain(const Model& model, int64_t runs_expected)
    : model_(model), memory_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {
  for (const LoadedStage& stage : model.stages()) {
    bindings_.emplace_back(*stage.session);
    timings_.push_back(StageTimings{stage.config.name, {}, {}});
    timings_.back().token_run_ns.reserve(static_cast<size_t>(runs_expected));
  }
}

void StageChain::RunStage(size_t index, bool prompt, StageFeeds& feeds, int64_t position) {
  const LoadedStage& stage = model_.stages()[index];
  const StageConfig& config = stage.config;
  Ort::IoBinding& binding = bindings_[index];
  // Binding a name again replaces it in place (output order stays that of config.outputs).
  for (const std::string& input : config.inputs) {
    if (feeds.BindInput(binding, index, input)) continue;
    const auto it = named_.find(input);
    if (it == named_.end()) {
      throw Error(ExitCode::kInferenceFailed,
                  "pipeline stage '" + config.name + "' needs '" + input + "', which no stage produced in this step");
    }
    binding.BindInput(input.c_str(), it->second);
  }
  std::vector<bool> kept(config.outputs.size(), false);
  for (size_t o = 0; o < config.outputs.size(); ++o) {
    const std::string& output = config.outputs[o];
    if (feeds.BindOutput(binding, index, output)) continue;
    named_.erase(ForwardedName(config, output));  // a stage's old outputs go before it re-runs
    binding.BindOutput(output.c_str(), memory_);
    kept[o] = true;
  }
  const Clock::time_point start = Clock::now();
  try {
    stage.session->Run(run_options_, binding);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ExitCode::kInferenceFailed,
                       "pipeline stage '" + config.name + "' failed at position " + std::to_string(position));
  }
  const int64_t elapsed = NanosSince(start);
  feeds.StageRan(index);
  ort_ns_ += elapsed;
  (prompt ? timings_[index].prompt_run_ns : timings_[index].token_run_ns).push_back(elapsed);
  std::vector<Ort::Value> values = binding.GetOutputValues();
  for (size_t o = 0; o < config.outputs.size() && o < values.size(); ++o) {
    if (kept[o]) named_[ForwardedName(config, config.outputs[o])] = std::move(values[o]);
  }
}

void StageChain::Run(bool prompt, StageFeeds& feeds, int64_t position, const std::vector<bool>& skip) {
  const std::vector<LoadedStage>& stages = model_.stages();
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageConfig& config = stages[i].config;
    if (prompt ? !config.run_on_prompt : !config.run_on_token_gen) continue;
    if (i < skip.size() && skip[i]) continue;
    RunStage(i, prompt, feeds, position);
  }
}

void StageChain::DropPromptOnlyOutputs() {
  for (const LoadedStage& stage : model_.stages()) {
    if (stage.config.run_on_token_gen) continue;
    for (const std::string& output : stage.config.outputs) named_.erase(ForwardedName(stage.config, output));
  }
}

}  // namespace modelkit::generate
