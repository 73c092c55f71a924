#include "support/flat_decoder_runner.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "modelkit/base/files.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::test {
namespace {

std::string LayerName(const std::string& format, int64_t layer) {
  const size_t at = format.find("%d");
  return format.substr(0, at) + std::to_string(layer) + format.substr(at + 2);
}

}  // namespace

FlatDecoderRunner::FlatDecoderRunner(const std::filesystem::path& bundle, int64_t shared_buffer_length)
    : shared_length_(shared_buffer_length) {
  const nlohmann::json config = nlohmann::json::parse(ReadTextFile(bundle / "genai_config.json", "genai config"));
  const nlohmann::json& decoder = config["model"]["decoder"];
  layers_ = decoder["num_hidden_layers"];
  kv_heads_ = decoder["num_key_value_heads"];
  head_size_ = decoder["head_size"];
  vocab_size_ = config["model"]["vocab_size"];
  ort::SharedEnv();
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  const std::string model = (bundle / decoder["filename"].get<std::string>()).string();
  session_ = std::make_unique<Ort::Session>(ort::SharedEnv(), model.c_str(), options);
  for (size_t i = 0; i < session_->GetInputCount(); ++i) {
    if (session_->GetInputNameAllocated(i, Ort::AllocatorWithDefaultOptions()).get() ==
        std::string("past_key_values.0.key")) {
      kv_type_ = session_->GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetElementType();
    }
  }
  logits_type_ = session_->GetOutputTypeInfo(0).GetTensorTypeAndShapeInfo().GetElementType();
  kv_element_size_ = kv_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ? 2 : 4;
  past_.resize(static_cast<size_t>(2 * layers_));
  if (shared_length_ > 0) {
    for (auto& buffer : past_)
      buffer.assign(static_cast<size_t>(kv_heads_ * shared_length_ * head_size_) * kv_element_size_, std::byte{0});
  }
}

std::vector<float> FlatDecoderRunner::Run(const std::vector<int64_t>& tokens) {
  const int64_t seq = static_cast<int64_t>(tokens.size());
  const int64_t total = past_length_ + seq;
  const Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<int64_t> ids = tokens;
  std::vector<int64_t> mask(static_cast<size_t>(total), 1);
  const int64_t ids_shape[] = {1, seq};
  const int64_t mask_shape[] = {1, total};
  Ort::IoBinding binding(*session_);
  binding.BindInput("input_ids", Ort::Value::CreateTensor<int64_t>(cpu, ids.data(), ids.size(), ids_shape, 2));
  binding.BindInput("attention_mask", Ort::Value::CreateTensor<int64_t>(cpu, mask.data(), mask.size(), mask_shape, 2));
  const bool half_logits = logits_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
  std::vector<std::byte> logits(static_cast<size_t>(seq * vocab_size_) * (half_logits ? 2 : 4));
  const int64_t logits_shape[] = {1, seq, vocab_size_};
  binding.BindOutput("logits",
                     Ort::Value::CreateTensor(cpu, logits.data(), logits.size(), logits_shape, 3, logits_type_));
  const char* const past_formats[] = {"past_key_values.%d.key", "past_key_values.%d.value"};
  const char* const present_formats[] = {"present.%d.key", "present.%d.value"};
  std::vector<std::vector<std::byte>> present(past_.size());
  std::byte dummy[4] = {};
  for (int64_t l = 0; l < layers_; ++l) {
    for (int kv = 0; kv < 2; ++kv) {
      std::vector<std::byte>& past = past_[static_cast<size_t>(2 * l + kv)];
      const int64_t past_dim = shared_length_ > 0 ? shared_length_ : past_length_;
      const int64_t past_shape[] = {1, kv_heads_, past_dim, head_size_};
      binding.BindInput(
          LayerName(past_formats[kv], l).c_str(),
          Ort::Value::CreateTensor(cpu, past.empty() ? dummy : past.data(), past.size(), past_shape, 4, kv_type_));
      if (shared_length_ > 0) {
        binding.BindOutput(LayerName(present_formats[kv], l).c_str(),
                           Ort::Value::CreateTensor(cpu, past.data(), past.size(), past_shape, 4, kv_type_));
      } else {
        std::vector<std::byte>& out = present[static_cast<size_t>(2 * l + kv)];
        out.assign(static_cast<size_t>(kv_heads_ * total * head_size_) * kv_element_size_, std::byte{0});
        const int64_t present_shape[] = {1, kv_heads_, total, head_size_};
        binding.BindOutput(LayerName(present_formats[kv], l).c_str(),
                           Ort::Value::CreateTensor(cpu, out.data(), out.size(), present_shape, 4, kv_type_));
      }
    }
  }
  session_->Run(Ort::RunOptions{}, binding);
  if (shared_length_ == 0) past_ = std::move(present);
  past_length_ = total;
  std::vector<float> result(static_cast<size_t>(seq * vocab_size_));
  if (half_logits) {
    const auto* halves = reinterpret_cast<const Ort::Float16_t*>(logits.data());
    for (size_t i = 0; i < result.size(); ++i) result[i] = halves[i].ToFloat();
  } else {
    std::memcpy(result.data(), logits.data(), logits.size());
  }
  return result;
}

}  // namespace modelkit::test
