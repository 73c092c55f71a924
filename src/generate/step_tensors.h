// The managed tensors of one decoder step, batch 1, fed as onnxruntime-genai feeds them: input_ids,
// attention_mask, position_ids, the sequence-length scalars and the logits. Element types come from the graph
// (int32 or int64 for ids, mask and positions; fp32, fp16 or bf16 for logits).
//
// A decode step allocates nothing: the buffers and the ORT values viewing them are made once and refilled, the
// attention mask (whose shape changes every step) has one view per length made up front, and a binding is given a
// value again only when the value changed (binding costs ORT allocations of its own).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "modelkit/generate/config.h"

namespace modelkit::generate {

class StepTensors {
 private:
  // The values a binding can hold: ids, mask, positions, the three sequence lengths, the logits.
  enum Slot : size_t { kIds, kMask, kPositions, kPastLength, kCurrentLength, kTotalLength, kLogits, kSlotCount };

 public:
  // What one IoBinding last received from these tensors (one per binding, starting empty).
  class Bound {
    friend class StepTensors;
    std::array<uint64_t, kSlotCount> versions_{};  // 0: never bound
  };

  // `max_positions`: the most positions a generation feeds (past + chunk never exceeds it).
  StepTensors(const TensorNames& names, int64_t vocab_size, int64_t max_positions);

  // Records the element types of the managed inputs and of the logits `session` declares. Throws
  // Error(kInvalidModel) naming `where` for an unsupported element type or a mask/positions type mismatch.
  void Observe(const Ort::Session& session, const std::string& where);

  // True for names of managed inputs (ids, mask, positions, sequence lengths); KV is the cache's.
  bool IsManagedInput(const std::string& name) const;
  bool IsLogits(const std::string& name) const { return name == names_.logits; }

  // Fills the buffers for feeding `tokens` after `past_length` positions (past_length + tokens.size() must not
  // exceed max_positions: checked, abort otherwise).
  void Prepare(std::span<const int64_t> tokens, int64_t past_length);

  // Binds managed input `name` (see IsManagedInput) for the prepared step, unless `bound` says `binding` holds it.
  void BindInput(Ort::IoBinding& binding, const std::string& name, Bound& bound);
  // Binds the logits output for the prepared step, unless `bound` says `binding` holds it.
  void BindLogits(Ort::IoBinding& binding, Bound& bound);

  // The last position's logits as fp32 [vocab] (a view of the output for fp32 logits, a converted copy otherwise).
  std::span<const float> LastLogits();

 private:
  void MakeFixedValues();
  void PrepareIdsAndPositions(std::span<const int64_t> tokens, int64_t past_length, bool new_chunk_size);
  void PrepareLogits();
  void Set(Slot slot, Ort::Value value);
  const Ort::Value& CurrentValue(Slot slot) const;
  void Bind(Ort::IoBinding& binding, const std::string& name, Slot slot, bool output, Bound& bound);

  TensorNames names_;
  int64_t vocab_size_;
  int64_t max_positions_;
  ONNXTensorElementDataType ids_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  ONNXTensorElementDataType mask_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  ONNXTensorElementDataType positions_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  ONNXTensorElementDataType lengths_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  bool saw_mask_ = false;
  bool saw_positions_ = false;
  ONNXTensorElementDataType logits_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  bool logits_last_only_ = false;  // the graph's logits dim 1 is statically 1
  int64_t chunk_ = 0;
  // Buffers: only the element type the graph declares is used. The mask is max_positions ones, viewed at every
  // length; ids and positions hold one chunk and are viewed again only when the chunk size changes.
  std::vector<int64_t> ids64_, positions64_, mask64_;
  std::vector<int32_t> ids32_, positions32_, mask32_;
  std::array<int64_t, 3> lengths64_{};  // past, current, total
  std::array<int32_t, 3> lengths32_{};
  std::vector<Ort::Value> mask_views_;  // [n - 1]: the mask of length n
  bool fixed_values_made_ = false;
  // Logits storage: rows x vocab elements, grown (never zeroed: ORT writes every element) when a chunk needs more.
  std::unique_ptr<std::byte[]> logits_;
  size_t logits_capacity_ = 0;
  int64_t logits_rows_ = 0;
  std::vector<float> converted_;
  // The current value of each slot but the mask (a view in mask_views_; see CurrentValue), and a version that changes
  // whenever the slot's value does: a count of replacements, and for the mask the length of its current view.
  std::array<Ort::Value, kSlotCount> values_{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  std::array<uint64_t, kSlotCount> versions_{};
  Ort::MemoryInfo memory_;
};

// int32 or int64: the element types of ids, masks, positions and sequence lengths the runtime feeds.
bool IsIntType(ONNXTensorElementDataType type);

// What a session declares of its logits output.
struct LogitsOutput {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  bool last_only = false;  // dim 1 is statically 1: the graph keeps only the last position
};
// The logits output `logits` of `session`, or nullopt when it has none. Throws Error(kInvalidModel) naming `where`
// for an element type other than fp32, fp16, bf16, or a fixed width other than `vocab_size`.
std::optional<LogitsOutput> ObserveLogitsOutput(const Ort::Session& session, const std::string& logits,
                                                int64_t vocab_size, const std::string& where);

// Row `row` of fp32, fp16 or bf16 logits as fp32 [vocab]: a view for fp32, else converted into `converted`.
std::span<const float> LogitsRowAsFloat(ONNXTensorElementDataType type, const std::byte* row, size_t vocab,
                                        std::vector<float>& converted);

}  // namespace modelkit::generate
