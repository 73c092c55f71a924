#include "stage_chain.h"

#include <cstring>
#include <set>

#include "kv_cache.h"
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
    outputs_.emplace_back(stage.config.outputs.size());
    bound_inputs_.emplace_back();
    timings_.push_back(StageTimings{stage.config.name, {}, {}});
    timings_.back().token_run_ns.reserve(static_cast<size_t>(runs_expected));
  }
  // Names only prompt stages produce. A name a token stage also produces (the ctx and iter stages' hidden states)
  // holds that stage's value once a token step ran.
  std::set<std::string> token_names;
  for (const LoadedStage& stage : model.stages()) {
    if (!stage.config.run_on_token_gen) continue;
    for (const std::string& output : stage.config.outputs) token_names.insert(ForwardedName(stage.config, output));
  }
  for (const LoadedStage& stage : model.stages()) {
    if (stage.config.run_on_token_gen) continue;
    for (const std::string& output : stage.config.outputs) {
      const std::string name = ForwardedName(stage.config, output);
      if (!token_names.contains(name)) prompt_only_names_.push_back(name);
    }
  }
}

void StageChain::RunStage(size_t index, bool prompt, StageFeeds& feeds, int64_t position) {
  const LoadedStage& stage = model_.stages()[index];
  const StageConfig& config = stage.config;
  Ort::IoBinding& binding = bindings_[index];
  std::map<std::string, uint64_t>& bound_inputs = bound_inputs_[index];
  // Binding a name again replaces it in place (output order stays that of config.outputs).
  for (const std::string& input : config.inputs) {
    if (feeds.BindInput(binding, index, input)) continue;
    const auto it = named_.find(input);
    if (it == named_.end()) {
      throw Error(ExitCode::kInferenceFailed,
                  "pipeline stage '" + config.name + "' needs '" + input + "', which no stage produced in this step");
    }
    // Binding allocates inside ORT: only a changed value is bound again (a device stage copies its inputs when they
    // are bound, so it gets them every run).
    const auto bound = bound_inputs.find(input);
    if (!stage.binds_to_device && bound != bound_inputs.end() && bound->second == it->second.version) continue;
    binding.BindInput(input.c_str(), it->second.value);
    bound_inputs[input] = it->second.version;
  }
  std::vector<OutputState>& token_outputs = outputs_[index];
  bool ort_allocates = false;
  for (size_t o = 0; o < config.outputs.size(); ++o) {
    const std::string& output = config.outputs[o];
    if (feeds.BindOutput(binding, index, output)) continue;
    OutputState& own = token_outputs[o];
    own.allocated_by_ort = false;
    if (!prompt && own.view) {
      if (!own.bound) binding.BindOutput(output.c_str(), own.view);
      own.bound = true;
      continue;
    }
    named_.erase(ForwardedName(config, output));  // a stage's old outputs go before it re-runs
    binding.BindOutput(output.c_str(), memory_);
    own.bound = false;
    own.allocated_by_ort = true;
    ort_allocates = true;
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
  if (!ort_allocates) return;  // every output was in a buffer bound before the run
  std::vector<Ort::Value> values = binding.GetOutputValues();
  for (size_t o = 0; o < config.outputs.size() && o < values.size(); ++o) {
    if (!token_outputs[o].allocated_by_ort) continue;
    Named& named = named_[ForwardedName(config, config.outputs[o])];
    named.value = prompt ? std::move(values[o]) : AdoptTokenOutput(index, o, std::move(values[o]));
    named.version = ++versions_;  // unique across erasures: a new value never matches what was bound before
  }
}

Ort::Value StageChain::AdoptTokenOutput(size_t index, size_t o, Ort::Value value) {
  OutputState& own = outputs_[index][o];
  if (!value.IsTensor()) return value;
  const auto info = value.GetTensorTypeAndShapeInfo();
  std::vector<int64_t> shape = info.GetShape();
  if (shape != own.last_shape) {
    own.last_shape = std::move(shape);
    return value;
  }
  // The same shape two token steps in a row: from the next step on, the output goes to a buffer of its own. Token
  // steps feed one token, so what an output's shape depends on (batch, chunk) no longer changes.
  const ONNXTensorElementDataType type = info.GetElementType();
  const size_t bytes = info.GetElementCount() * ElementSize(type);
  own.buffer.reset(new std::byte[bytes]);
  std::memcpy(own.buffer.get(), value.GetTensorRawData(), bytes);
  own.view =
      Ort::Value::CreateTensor(memory_, own.buffer.get(), bytes, own.last_shape.data(), own.last_shape.size(), type);
  // The view names the same bytes for the rest of the generation; what it is kept under never changes again.
  return Ort::Value::CreateTensor(memory_, own.buffer.get(), bytes, own.last_shape.data(), own.last_shape.size(), type);
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
  for (const std::string& name : prompt_only_names_) named_.erase(name);
}

}  // namespace modelkit::generate
