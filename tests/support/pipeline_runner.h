// Feeds a decoder-pipeline bundle the way onnxruntime-genai does, batch 1, with shared past/present buffers of
// context_length: stages run in config order, skipped per run_on_prompt / run_on_token_gen; managed tensors
// (input_ids, attention_mask, KV, logits) are bound by name, other outputs are passed by name to later stages.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace modelkit::test {

class PipelineRunner {
 public:
  explicit PipelineRunner(const std::filesystem::path& bundle);

  // Feeds `tokens` as the next chunk; returns logits [tokens.size(), vocab].
  std::vector<float> Run(const std::vector<int64_t>& tokens);

  // Stage names that ran in the last Run, in order.
  const std::vector<std::string>& last_stages() const { return last_stages_; }

 private:
  struct Stage {
    std::string name;
    std::unique_ptr<Ort::Session> session;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    bool run_on_prompt = true;
    bool run_on_token_gen = true;
  };
  std::vector<Stage> stages_;
  int64_t kv_heads_ = 0;
  int64_t head_size_ = 0;
  int64_t vocab_size_ = 0;
  int64_t context_length_ = 0;
  int64_t past_length_ = 0;
  ONNXTensorElementDataType kv_type_ = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;  // from the stages' past-key input
  std::map<std::string, std::vector<std::byte>> kv_;                         // past/present name -> shared buffer
  std::vector<std::string> last_stages_;
};

}  // namespace modelkit::test
