// The flat layout: one decoder session fed every input it declares.
#pragma once

#include "kv_cache.h"
#include "modelkit/generate/decoder_runner.h"
#include "step_tensors.h"

namespace modelkit::generate {

class FlatRunner : public DecoderRunner {
 public:
  // See MakeDecoderRunner: `max_positions` is the most positions it feeds.
  FlatRunner(const Model& model, int64_t kv_shared_length, int64_t max_positions);

  std::span<const float> Run(std::span<const int64_t> tokens) override;
  int64_t past_length() const override { return kv_.past_length(); }
  int64_t last_ort_ns() const override { return last_ort_ns_; }
  const std::vector<StageTimings>& stage_timings() const override { return timings_; }
  size_t kv_bytes() const override { return kv_.bytes(); }

 private:
  const LoadedStage& stage_;
  KvCache kv_;
  StepTensors step_;
  Ort::IoBinding binding_;
  StepTensors::Bound bound_;
  Ort::RunOptions run_options_;
  bool kv_bound_ = false;     // the shared KV buffers (which never move) are bound
  bool other_bound_ = false;  // outputs ORT allocates (neither logits nor KV) are bound to its allocator
  int64_t last_ort_ns_ = 0;
  std::vector<StageTimings> timings_;
};

}  // namespace modelkit::generate
