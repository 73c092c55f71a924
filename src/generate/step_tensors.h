// The managed tensors of one decoder step, batch 1, fed as onnxruntime-genai feeds them: input_ids,
// attention_mask, position_ids, the sequence-length scalars and the logits. Element types come from the graph
// (int32 or int64 for ids, mask and positions; fp32, fp16 or bf16 for logits). Buffers are reused between steps.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "modelkit/generate/config.h"

namespace modelkit::generate {

class StepTensors {
 public:
  StepTensors(const TensorNames& names, int64_t vocab_size);

  // Records the element types of the managed inputs and of the logits `session` declares. Throws
  // Error(kInvalidModel) naming `where` for an unsupported element type or a mask/positions type mismatch.
  void Observe(const Ort::Session& session, const std::string& where);

  // True for names of managed inputs (ids, mask, positions, sequence lengths); KV is the cache's.
  bool IsManagedInput(const std::string& name) const;
  bool IsLogits(const std::string& name) const { return name == names_.logits; }

  // Fills the buffers for feeding `tokens` after `past_length` positions.
  void Prepare(std::span<const int64_t> tokens, int64_t past_length);

  // Binds managed input `name` (see IsManagedInput) for the prepared step.
  void BindInput(Ort::IoBinding& binding, const std::string& name);
  // Binds the logits output for the prepared step.
  void BindLogits(Ort::IoBinding& binding);

  // The last position's logits as fp32 [vocab] (a view of the output for fp32 logits, a converted copy otherwise).
  std::span<const float> LastLogits();

 private:
  Ort::Value IntTensor(std::vector<int64_t>& values64, std::vector<int32_t>& values32, ONNXTensorElementDataType type,
                       std::span<const int64_t> shape);

  TensorNames names_;
  int64_t vocab_size_;
  ONNXTensorElementDataType ids_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  ONNXTensorElementDataType mask_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  ONNXTensorElementDataType positions_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  bool saw_mask_ = false;
  bool saw_positions_ = false;
  ONNXTensorElementDataType logits_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  bool logits_last_only_ = false;  // the graph's logits dim 1 is statically 1
  int64_t chunk_ = 0;
  int64_t past_length_ = 0;
  std::vector<int64_t> ids64_, mask64_, positions64_, lengths64_;
  std::vector<int32_t> ids32_, mask32_, positions32_, lengths32_;
  ONNXTensorElementDataType lengths_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  // Logits storage: rows x vocab elements, grown (never zeroed: ORT writes every element) when a chunk needs more.
  std::unique_ptr<std::byte[]> logits_;
  size_t logits_capacity_ = 0;
  std::vector<float> converted_;
  Ort::MemoryInfo memory_;
};

}  // namespace modelkit::generate
