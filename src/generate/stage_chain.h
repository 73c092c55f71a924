// The stages of a decoder pipeline run in declaration order for one phase (prompt: run_on_prompt, tokens:
// run_on_token_gen), each through its own IoBinding. What the runtime manages (ids, mask, positions, lengths, KV,
// logits) is bound by the caller's StageFeeds; every other output is kept by its (forwarded) name and bound as the
// input of a later stage that lists it.
//
// Token steps allocate nothing of their own: an output ORT allocates is given a buffer of its own once two token
// steps in a row produced it with the same shape (a stage's hidden states: [1, 1, hidden]), bound from then on, and
// a stage's input is bound again only when the value it names changed.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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
  // Drops the outputs only prompt stages produce (after the first token-generation step, nothing reads them again).
  void DropPromptOnlyOutputs();

  // Nanoseconds inside ORT Run calls since the last ResetOrtTime().
  int64_t ort_ns() const { return ort_ns_; }
  void ResetOrtTime() { ort_ns_ = 0; }
  const std::vector<StageTimings>& timings() const { return timings_; }

 private:
  // A non-managed output, by its (forwarded) name: its current value and the version that value was given.
  struct Named {
    Ort::Value value{nullptr};
    uint64_t version = 0;
  };
  // A non-managed output of a stage: whether ORT allocated it in the last run; in token steps the shape of its
  // last ORT-allocated value, then a buffer of its own.
  struct OutputState {
    bool allocated_by_ort = false;
    std::vector<int64_t> last_shape;
    std::unique_ptr<std::byte[]> buffer;
    Ort::Value view{nullptr};  // set once the buffer exists
    bool bound = false;        // the stage's binding holds `view`
  };

  void RunStage(size_t index, bool prompt, StageFeeds& feeds, int64_t position);
  // After a token step produced `value` for output `o` of stage `index`: gives the output a buffer of its own when
  // its shape repeats. Returns the value the chain keeps for it (the buffer's view, holding a copy, or `value`).
  Ort::Value AdoptTokenOutput(size_t index, size_t o, Ort::Value value);

  const Model& model_;
  std::vector<Ort::IoBinding> bindings_;
  std::map<std::string, Named> named_;
  uint64_t versions_ = 0;                          // the last version given to a Named value
  std::vector<std::string> prompt_only_names_;     // outputs no token stage produces (see DropPromptOnlyOutputs)
  std::vector<std::vector<OutputState>> outputs_;  // [stage][output]
  std::vector<std::map<std::string, uint64_t>> bound_inputs_;  // [stage]: version of each named input bound
  Ort::RunOptions run_options_;
  Ort::MemoryInfo memory_;
  int64_t ort_ns_ = 0;
  std::vector<StageTimings> timings_;
};

}  // namespace modelkit::generate
