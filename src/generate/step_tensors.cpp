#include "step_tensors.h"

#include <cstring>

#include "kv_cache.h"
#include "modelkit/base/error.h"

namespace modelkit::generate {
namespace {

bool IsIntType(ONNXTensorElementDataType type) {
  return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
}

}  // namespace

StepTensors::StepTensors(const TensorNames& names, int64_t vocab_size)
    : names_(names),
      vocab_size_(vocab_size),
      memory_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {}

void StepTensors::Observe(const Ort::Session& session, const std::string& where) {
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    const std::string name = session.GetInputNameAllocated(i, allocator).get();
    if (!IsManagedInput(name)) continue;
    const ONNXTensorElementDataType type = session.GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetElementType();
    if (!IsIntType(type)) {
      throw Error(ExitCode::kInvalidModel, where + ": input '" + name + "' must be int32 or int64");
    }
    if (name == names_.input_ids) {
      ids_type_ = type;
    } else if (name == names_.attention_mask) {
      mask_type_ = type;
      saw_mask_ = true;
    } else if (name == names_.position_ids) {
      positions_type_ = type;
      saw_positions_ = true;
    } else {
      lengths_type_ = type;
    }
  }
  if (saw_mask_ && saw_positions_ && mask_type_ != positions_type_) {
    throw Error(ExitCode::kInvalidModel, where + ": '" + names_.attention_mask + "' and '" + names_.position_ids +
                                             "' must have the same element type");
  }
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    if (session.GetOutputNameAllocated(i, allocator).get() != names_.logits) continue;
    const Ort::TypeInfo type_info = session.GetOutputTypeInfo(i);  // owns what `info` views
    const auto info = type_info.GetTensorTypeAndShapeInfo();
    logits_type_ = info.GetElementType();
    if (logits_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && logits_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 &&
        logits_type_ != ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16) {
      throw Error(ExitCode::kInvalidModel, where + ": output '" + names_.logits + "' must be fp32, fp16 or bf16");
    }
    const std::vector<int64_t> shape = info.GetShape();
    logits_last_only_ = shape.size() == 3 && shape[1] == 1;
    if (shape.size() == 3 && shape[2] > 0 && shape[2] != vocab_size_) {
      throw Error(ExitCode::kInvalidModel, where + ": output '" + names_.logits + "' has " + std::to_string(shape[2]) +
                                               " columns but model.vocab_size is " + std::to_string(vocab_size_));
    }
  }
}

bool StepTensors::IsManagedInput(const std::string& name) const {
  return name == names_.input_ids || name == names_.attention_mask || name == names_.position_ids ||
         name == names_.past_sequence_length || name == names_.current_sequence_length ||
         name == names_.total_sequence_length;
}

void StepTensors::Prepare(std::span<const int64_t> tokens, int64_t past_length) {
  chunk_ = static_cast<int64_t>(tokens.size());
  past_length_ = past_length;
  const int64_t total = past_length + chunk_;
  // Only the element type each input has is filled; the mask is all ones, so it only grows.
  if (ids_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
    ids32_.assign(tokens.begin(), tokens.end());
  } else {
    ids64_.assign(tokens.begin(), tokens.end());
  }
  if (mask_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
    mask32_.resize(static_cast<size_t>(total), 1);
  } else {
    mask64_.resize(static_cast<size_t>(total), 1);
  }
  if (saw_positions_) {
    positions64_.resize(static_cast<size_t>(chunk_));
    positions32_.resize(static_cast<size_t>(chunk_));
    for (int64_t i = 0; i < chunk_; ++i) {
      positions64_[static_cast<size_t>(i)] = past_length + i;
      positions32_[static_cast<size_t>(i)] = static_cast<int32_t>(past_length + i);
    }
  }
  lengths64_ = {past_length, chunk_, total};
  lengths32_ = {static_cast<int32_t>(past_length), static_cast<int32_t>(chunk_), static_cast<int32_t>(total)};
}

Ort::Value StepTensors::IntTensor(std::vector<int64_t>& values64, std::vector<int32_t>& values32,
                                  ONNXTensorElementDataType type, std::span<const int64_t> shape) {
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
    return Ort::Value::CreateTensor<int32_t>(memory_, values32.data(), values32.size(), shape.data(), shape.size());
  }
  return Ort::Value::CreateTensor<int64_t>(memory_, values64.data(), values64.size(), shape.data(), shape.size());
}

void StepTensors::BindInput(Ort::IoBinding& binding, const std::string& name) {
  if (name == names_.input_ids) {
    const int64_t shape[] = {1, chunk_};
    binding.BindInput(name.c_str(), IntTensor(ids64_, ids32_, ids_type_, shape));
  } else if (name == names_.attention_mask) {
    const int64_t shape[] = {1, past_length_ + chunk_};
    binding.BindInput(name.c_str(), IntTensor(mask64_, mask32_, mask_type_, shape));
  } else if (name == names_.position_ids) {
    const int64_t shape[] = {1, chunk_};
    binding.BindInput(name.c_str(), IntTensor(positions64_, positions32_, positions_type_, shape));
  } else {
    const size_t index = name == names_.past_sequence_length ? 0 : name == names_.current_sequence_length ? 1 : 2;
    const int64_t shape[] = {1};
    if (lengths_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
      binding.BindInput(name.c_str(), Ort::Value::CreateTensor<int32_t>(memory_, &lengths32_[index], 1, shape, 1));
    } else {
      binding.BindInput(name.c_str(), Ort::Value::CreateTensor<int64_t>(memory_, &lengths64_[index], 1, shape, 1));
    }
  }
}

void StepTensors::BindLogits(Ort::IoBinding& binding) {
  const int64_t rows = logits_last_only_ ? 1 : chunk_;
  const size_t bytes = static_cast<size_t>(rows * vocab_size_) * ElementSize(logits_type_);
  // Grown for a prompt chunk, shrunk back once for the first one-token step so that decoding does not keep the
  // prompt's rows x vocab buffer; both happen once per generation, never per token.
  if (logits_capacity_ < bytes || (rows == 1 && logits_capacity_ > bytes)) {
    logits_.reset();  // release first: the old and the new buffer never coexist
    logits_.reset(new std::byte[bytes]);
    logits_capacity_ = bytes;
  }
  const int64_t shape[] = {1, rows, vocab_size_};
  binding.BindOutput(names_.logits.c_str(),
                     Ort::Value::CreateTensor(memory_, logits_.get(), bytes, shape, 3, logits_type_));
}

std::span<const float> StepTensors::LastLogits() {
  const int64_t rows = logits_last_only_ ? 1 : chunk_;
  const size_t offset = static_cast<size_t>((rows - 1) * vocab_size_);
  const size_t vocab = static_cast<size_t>(vocab_size_);
  if (logits_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
    return {reinterpret_cast<const float*>(logits_.get()) + offset, vocab};
  }
  converted_.resize(vocab);
  if (logits_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    const auto* values = reinterpret_cast<const Ort::Float16_t*>(logits_.get()) + offset;
    for (size_t i = 0; i < vocab; ++i) converted_[i] = values[i].ToFloat();
  } else {
    const auto* values = reinterpret_cast<const Ort::BFloat16_t*>(logits_.get()) + offset;
    for (size_t i = 0; i < vocab; ++i) converted_[i] = values[i].ToFloat();
  }
  return converted_;
}

}  // namespace modelkit::generate
