// The decoder-pipeline layout: stages in declaration order, skipped per run_on_prompt / run_on_token_gen; managed
// tensors bound to the stages that list them, other outputs handed on by (forwarded) name (StageChain).
#pragma once

#include <vector>

#include "kv_cache.h"
#include "modelkit/generate/decoder_runner.h"
#include "stage_chain.h"
#include "step_tensors.h"

namespace modelkit::generate {

class PipelineRunner : public DecoderRunner, private StageFeeds {
 public:
  // See MakeDecoderRunner: `max_positions` is the most positions it feeds.
  PipelineRunner(const Model& model, int64_t kv_shared_length, int64_t max_positions);

  std::span<const float> Run(std::span<const int64_t> tokens) override;
  int64_t past_length() const override { return kv_.past_length(); }
  int64_t last_ort_ns() const override { return chain_.ort_ns(); }
  const std::vector<StageTimings>& stage_timings() const override { return chain_.timings(); }
  size_t kv_bytes() const override { return kv_.bytes(); }

 private:
  bool BindInput(Ort::IoBinding& binding, size_t stage, const std::string& name) override;
  bool BindOutput(Ort::IoBinding& binding, size_t stage, const std::string& name) override;
  void StageRan(size_t stage) override;

  KvCache kv_;
  StepTensors step_;
  StageChain chain_;
  int64_t chunk_ = 0;                      // tokens of the step being run
  std::vector<StepTensors::Bound> bound_;  // per stage
  std::vector<bool> kv_bound_;             // per stage: shared KV buffers already bound
  std::vector<bool> on_device_;            // per stage: LoadedStage::binds_to_device
};

}  // namespace modelkit::generate
