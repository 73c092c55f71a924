// The decoder-pipeline layout: stages in declaration order, skipped per run_on_prompt / run_on_token_gen; managed
// tensors bound to the stages that list them, other outputs handed on by (forwarded) name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kv_cache.h"
#include "modelkit/generate/decoder_runner.h"
#include "step_tensors.h"

namespace modelkit::generate {

class PipelineRunner : public DecoderRunner {
 public:
  // See MakeDecoderRunner: `max_positions` is the most positions it feeds.
  PipelineRunner(const Model& model, int64_t kv_shared_length, int64_t max_positions);

  std::span<const float> Run(std::span<const int64_t> tokens) override;
  int64_t past_length() const override { return kv_.past_length(); }
  int64_t last_ort_ns() const override { return last_ort_ns_; }
  const std::vector<StageTimings>& stage_timings() const override { return timings_; }

 private:
  void RunStage(size_t index, bool prompt, int64_t chunk);

  const Model& model_;
  KvCache kv_;
  StepTensors step_;
  std::vector<Ort::IoBinding> bindings_;
  std::vector<StepTensors::Bound> bound_;    // per stage
  std::vector<bool> kv_bound_;               // per stage: shared KV buffers already bound
  std::map<std::string, Ort::Value> named_;  // non-managed outputs by (forwarded) name
  Ort::RunOptions run_options_;
  Ort::MemoryInfo memory_;
  int64_t last_ort_ns_ = 0;
  std::vector<StageTimings> timings_;
};

}  // namespace modelkit::generate
