// The stages of a decoder pipeline run in declaration order for one phase (prompt: run_on_prompt, tokens:
// run_on_token_gen), each through its own IoBinding. What the runtime manages (ids, mask, positions, lengths, KV,
// logits) is bound by the caller's StageFeeds; every other output is kept by its (forwarded) name and bound as the
// input of a later stage that lists it.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "modelkit/generate/model.h"
#include "modelkit/generate/timings.h"

namespace modelkit::generate {

// Binds the managed tensors of one step.
class StageFeeds {
 public:
  virtual ~StageFeeds() = default;
  // Binds managed input or output `name` of stage `stage` into `binding` (or leaves it bound as it is). Returns false
  // for a name it does not manage.
  virtual bool BindInput(Ort::IoBinding& binding, size_t stage, const std::string& name) = 0;
  virtual bool BindOutput(Ort::IoBinding& binding, size_t stage, const std::string& name) = 0;
  // Called after stage `stage` ran successfully.
  virtual void StageRan(size_t /*stage*/) {}
};

class StageChain {
 public:
  // `runs_expected`: token-generation runs to reserve timing room for (no growth while decoding).
  StageChain(const Model& model, int64_t runs_expected);

  // Runs the stages of the phase in order, skipping those `skip` says (stage index -> true). `position` names the
  // step in errors. Throws Error(kInferenceFailed) when ORT fails or a stage's input was not produced.
  void Run(bool prompt, StageFeeds& feeds, int64_t position, const std::vector<bool>& skip = {});
  // Drops the outputs of prompt-only stages (after the first token-generation step, nothing reads them again).
  void DropPromptOnlyOutputs();

  // Nanoseconds inside ORT Run calls since the last ResetOrtTime().
  int64_t ort_ns() const { return ort_ns_; }
  void ResetOrtTime() { ort_ns_ = 0; }
  const std::vector<StageTimings>& timings() const { return timings_; }

 private:
  void RunStage(size_t index, bool prompt, StageFeeds& feeds, int64_t position);

  const Model& model_;
  std::vector<Ort::IoBinding> bindings_;
  std::map<std::string, Ort::Value> named_;  // non-managed outputs by (forwarded) name
  Ort::RunOptions run_options_;
  Ort::MemoryInfo memory_;
  int64_t ort_ns_ = 0;
  std::vector<StageTimings> timings_;
};

}  // namespace modelkit::generate
