// Feeds a flat genai bundle's decoder in an ORT CPU session the way onnxruntime-genai does, batch 1: either a growing
// KV cache (past_present_share_buffer = false: each step's present becomes the next past) or one max-length buffer per
// K/V bound as both past and present (share buffer).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace modelkit::test {

class FlatDecoderRunner {
 public:
  // Loads genai_config.json and the decoder of `bundle`. `shared_buffer_length` > 0 selects the shared-buffer mode
  // with buffers of that many positions.
  explicit FlatDecoderRunner(const std::filesystem::path& bundle, int64_t shared_buffer_length = 0);

  // Feeds `tokens` as the next chunk (the prompt, then one token per step); returns logits [tokens.size(), vocab].
  std::vector<float> Run(const std::vector<int64_t>& tokens);

  int64_t vocab_size() const { return vocab_size_; }
  int64_t past_length() const { return past_length_; }

 private:
  std::unique_ptr<Ort::Session> session_;
  int64_t layers_ = 0;
  int64_t kv_heads_ = 0;
  int64_t head_size_ = 0;
  int64_t vocab_size_ = 0;
  int64_t shared_length_ = 0;
  int64_t past_length_ = 0;
  ONNXTensorElementDataType kv_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;      // from the first past-key input
  ONNXTensorElementDataType logits_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;  // fp16 logits are converted
  size_t kv_element_size_ = 4;
  // 2 per layer (key, value): raw bytes of [1, kv_heads, past or shared length, head] in kv_type_.
  std::vector<std::vector<std::byte>> past_;
};

}  // namespace modelkit::test
