// Runs a loaded bundle's decoder one chunk at a time (the prompt, then one token per step), batch 1, and hands back
// the last position's logits. The flat layout and the decoder pipeline implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "modelkit/generate/model.h"
#include "modelkit/generate/timings.h"

namespace modelkit::generate {

class DecoderRunner {
 public:
  virtual ~DecoderRunner() = default;

  // Feeds `tokens` at the next positions. Returns the last position's fp32 logits [vocab], valid until the next
  // Run. Throws Error(kInferenceFailed) when ORT fails.
  virtual std::span<const float> Run(std::span<const int64_t> tokens) = 0;

  // Positions fed so far.
  virtual int64_t past_length() const = 0;
  // Nanoseconds inside ORT Run calls during the last Run.
  virtual int64_t last_ort_ns() const = 0;
  // Per-stage ORT Run durations so far.
  virtual const std::vector<StageTimings>& stage_timings() const = 0;
  // Bytes the KV cache holds now (buffers as allocated; zero pages of a shared buffer count though not resident).
  virtual size_t kv_bytes() const = 0;
};

// The runner for `model`, feeding at most `max_length` positions in all. The KV cache is a shared buffer of
// `max_length` positions when search.past_present_share_buffer is set, of the graph's fixed KV length when it has one
// (a fixed length is what the graph was exported for, whatever `max_length`), else growing.
std::unique_ptr<DecoderRunner> MakeDecoderRunner(const Model& model, int64_t max_length);

}  // namespace modelkit::generate
