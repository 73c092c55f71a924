// The managed tensors of one run of the windowed layout (model.decoder.sliding_window), batch 1, every shape fixed
// per phase: input_ids and position_ids [1, window], attention_mask [1, context_length] lined up with the keys the
// model attends over (the cache's slots, then the window's positions), and the logits. Made once per phase and
// refilled in place, so a token step allocates nothing and binds nothing again.
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

class WindowedInputs {
 public:
  WindowedInputs(const TensorNames& names, int64_t vocab_size, int64_t context_length);

  // Records the element types `session` declares for ids, mask, positions (int32 or int64) and logits (fp32, fp16,
  // bf16). Throws Error(kInvalidModel) naming `where` for another type, or for a sequence-length input (the windowed
  // layout feeds none).
  void Observe(const Ort::Session& session, const std::string& where);

  bool IsManagedInput(const std::string& name) const;
  bool IsLogits(const std::string& name) const { return name == names_.logits; }

  // Fills the tensors for one run of `tokens` (window rows, the first `pads` of them padding) whose first real token
  // is at `position`, over a cache whose first `filled` of `slots` slots hold positions. A run whose window differs
  // from the last one's makes new tensors (version() changes).
  void Prepare(std::span<const int64_t> tokens, int64_t pads, int64_t position, int64_t filled, int64_t slots);

  // The value bound to managed input `name`, or to the logits.
  const Ort::Value& Input(const std::string& name) const;
  const Ort::Value& Logits() const { return logits_value_; }
  // Changes whenever the values above are replaced.
  uint64_t version() const { return version_; }

  // The last row's logits as fp32 [vocab] (a view for fp32 logits, a converted copy otherwise).
  std::span<const float> LastLogits();

 private:
  void MakeValues(int64_t window);

  TensorNames names_;
  int64_t vocab_size_;
  int64_t context_length_;
  ONNXTensorElementDataType ids_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  ONNXTensorElementDataType mask_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  ONNXTensorElementDataType positions_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  ONNXTensorElementDataType logits_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  bool logits_last_only_ = false;  // the graph's logits dim 1 is statically 1
  int64_t window_ = 0;
  uint64_t version_ = 0;
  // int64 storage for every input; int32 inputs view the int32 copies.
  std::vector<int64_t> ids64_, positions64_, mask64_;
  std::vector<int32_t> ids32_, positions32_, mask32_;
  std::vector<std::byte> logits_;
  std::vector<float> converted_;
  Ort::Value ids_value_{nullptr}, positions_value_{nullptr}, mask_value_{nullptr}, logits_value_{nullptr};
  Ort::MemoryInfo memory_;
};

}  // namespace modelkit::generate
