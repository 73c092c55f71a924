#include "flat_runner.h"

#include "modelkit/base/error.h"
#include "modelkit/ort/ort_error.h"
#include "pipeline_runner.h"
#include "windowed_runner.h"

namespace modelkit::generate {

FlatRunner::FlatRunner(const Model& model, int64_t kv_shared_length, int64_t max_positions)
    : stage_(model.stages().front()),
      kv_(model.config().decoder, model.kv_type(), kv_shared_length),
      step_(model.config().decoder.names, model.config().vocab_size, max_positions),
      binding_(*stage_.session) {
  step_.Observe(*stage_.session, stage_.config.filename);
  timings_.push_back(StageTimings{stage_.config.name, {}, {}});
  timings_.back().token_run_ns.reserve(static_cast<size_t>(max_positions));  // no growth while decoding
}

std::span<const float> FlatRunner::Run(std::span<const int64_t> tokens) {
  const int64_t chunk = static_cast<int64_t>(tokens.size());
  const bool prompt = kv_.past_length() == 0;
  step_.Prepare(tokens, kv_.past_length());
  kv_.Reserve(chunk);
  // Binding a name again replaces it; only what changed since the last step is bound again (binding allocates).
  const bool bind_kv = !kv_.shared() || !kv_bound_;
  for (const std::string& input : stage_.session_inputs) {
    if (const auto index = kv_.PastIndex(input)) {
      if (bind_kv) binding_.BindInput(input.c_str(), kv_.Past(*index));
    } else {
      step_.BindInput(binding_, input, bound_);
    }
  }
  for (const std::string& output : stage_.session_outputs) {
    if (step_.IsLogits(output)) {
      step_.BindLogits(binding_, bound_);
    } else if (const auto index = kv_.PresentIndex(output)) {
      if (bind_kv) binding_.BindOutput(output.c_str(), kv_.Present(*index, chunk));
    } else if (!other_bound_) {
      binding_.BindOutput(output.c_str(), Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault));
    }
  }
  other_bound_ = true;
  const Clock::time_point start = Clock::now();
  try {
    stage_.session->Run(run_options_, binding_);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(
        error, ExitCode::kInferenceFailed,
        stage_.config.filename + ": ONNX Runtime failed at position " + std::to_string(kv_.past_length()));
  }
  last_ort_ns_ = NanosSince(start);
  if (stage_.binds_to_device) {
    bound_ = StepTensors::Bound();  // the device took copies of the inputs when they were bound: bind them again
  } else {
    kv_bound_ = true;
  }
  (prompt ? timings_[0].prompt_run_ns : timings_[0].token_run_ns).push_back(last_ort_ns_);
  kv_.Commit(chunk);
  return step_.LastLogits();
}

std::unique_ptr<DecoderRunner> MakeDecoderRunner(const Model& model, int64_t max_length) {
  if (model.config().decoder.sliding_window) return std::make_unique<WindowedRunner>(model, max_length);
  int64_t shared = 0;
  if (model.fixed_kv_length() > 0) {
    shared = model.fixed_kv_length();
  } else if (model.config().search.past_present_share_buffer) {
    shared = max_length;
  }
  if (model.config().IsPipeline()) return std::make_unique<PipelineRunner>(model, shared, max_length);
  return std::make_unique<FlatRunner>(model, shared, max_length);
}

}  // namespace modelkit::generate
