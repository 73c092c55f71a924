#include "step_tensors.h"

#include <cstring>

#include "kv_cache.h"
#include "modelkit/base/check.h"
#include "modelkit/base/error.h"

namespace modelkit::generate {
bool IsIntType(ONNXTensorElementDataType type) {
  return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
}

std::optional<LogitsOutput> ObserveLogitsOutput(const Ort::Session& session, const std::string& logits,
                                                int64_t vocab_size, const std::string& where) {
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    if (session.GetOutputNameAllocated(i, allocator).get() != logits) continue;
    const Ort::TypeInfo type_info = session.GetOutputTypeInfo(i);  // owns what `info` views
    const auto info = type_info.GetTensorTypeAndShapeInfo();
    LogitsOutput output;
    output.type = info.GetElementType();
    if (output.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && output.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 &&
        output.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16) {
      throw Error(ExitCode::kInvalidModel, where + ": output '" + logits + "' must be fp32, fp16 or bf16");
    }
    const std::vector<int64_t> shape = info.GetShape();
    output.last_only = shape.size() == 3 && shape[1] == 1;
    if (shape.size() == 3 && shape[2] > 0 && shape[2] != vocab_size) {
      throw Error(ExitCode::kInvalidModel, where + ": output '" + logits + "' has " + std::to_string(shape[2]) +
                                               " columns but model.vocab_size is " + std::to_string(vocab_size));
    }
    return output;
  }
  return std::nullopt;
}

StepTensors::StepTensors(const TensorNames& names, int64_t vocab_size, int64_t max_positions)
    : names_(names),
      vocab_size_(vocab_size),
      max_positions_(max_positions),
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
  if (const auto logits = ObserveLogitsOutput(session, names_.logits, vocab_size_, where)) {
    logits_type_ = logits->type;
    logits_last_only_ = logits->last_only;
  }
}

bool StepTensors::IsManagedInput(const std::string& name) const {
  return name == names_.input_ids || name == names_.attention_mask || name == names_.position_ids ||
         name == names_.past_sequence_length || name == names_.current_sequence_length ||
         name == names_.total_sequence_length;
}

void StepTensors::Prepare(std::span<const int64_t> tokens, int64_t past_length) {
  const int64_t chunk = static_cast<int64_t>(tokens.size());
  const int64_t total = past_length + chunk;
  MODELKIT_CHECK(chunk > 0 && total <= max_positions_);
  if (!fixed_values_made_) MakeFixedValues();
  const bool chunk_changed = chunk != chunk_;
  chunk_ = chunk;
  PrepareIdsAndPositions(tokens, past_length, chunk_changed);
  versions_[kMask] = static_cast<uint64_t>(total);  // the view of this length (see CurrentValue)
  lengths64_ = {past_length, chunk, total};
  lengths32_ = {static_cast<int32_t>(past_length), static_cast<int32_t>(chunk), static_cast<int32_t>(total)};
  if (chunk_changed) PrepareLogits();
}

void StepTensors::MakeFixedValues() {
  // Made on the first step, once Observe has seen every session's element types.
  fixed_values_made_ = true;
  const size_t positions = static_cast<size_t>(max_positions_);
  mask_views_.reserve(positions);
  if (mask_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
    mask32_.assign(positions, 1);
  } else {
    mask64_.assign(positions, 1);
  }
  for (int64_t length = 1; length <= max_positions_; ++length) {
    const int64_t shape[] = {1, length};
    mask_views_.push_back(mask_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32
                              ? Ort::Value::CreateTensor<int32_t>(memory_, mask32_.data(), positions, shape, 2)
                              : Ort::Value::CreateTensor<int64_t>(memory_, mask64_.data(), positions, shape, 2));
  }
  const int64_t scalar_shape[] = {1};
  for (const Slot slot : {kPastLength, kCurrentLength, kTotalLength}) {
    const size_t index = slot - kPastLength;
    Set(slot, lengths_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32
                  ? Ort::Value::CreateTensor<int32_t>(memory_, &lengths32_[index], 1, scalar_shape, 1)
                  : Ort::Value::CreateTensor<int64_t>(memory_, &lengths64_[index], 1, scalar_shape, 1));
  }
}

void StepTensors::PrepareIdsAndPositions(std::span<const int64_t> tokens, int64_t past_length, bool new_chunk_size) {
  const size_t chunk = tokens.size();
  // Only the element type each input has is filled. A buffer holds exactly one chunk, so it reallocates only for a
  // new chunk size, which is viewed anew: a view never outlives its buffer's storage.
  const bool ids32 = ids_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  const bool positions32 = positions_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  if (ids32) {
    ids32_.assign(tokens.begin(), tokens.end());
  } else {
    ids64_.assign(tokens.begin(), tokens.end());
  }
  if (saw_positions_) {
    if (positions32) {
      positions32_.resize(chunk);
      for (size_t i = 0; i < chunk; ++i) positions32_[i] = static_cast<int32_t>(past_length + static_cast<int64_t>(i));
    } else {
      positions64_.resize(chunk);
      for (size_t i = 0; i < chunk; ++i) positions64_[i] = past_length + static_cast<int64_t>(i);
    }
  }
  if (!new_chunk_size) return;
  const int64_t shape[] = {1, static_cast<int64_t>(chunk)};
  Set(kIds, ids32 ? Ort::Value::CreateTensor<int32_t>(memory_, ids32_.data(), chunk, shape, 2)
                  : Ort::Value::CreateTensor<int64_t>(memory_, ids64_.data(), chunk, shape, 2));
  if (saw_positions_) {
    Set(kPositions, positions32 ? Ort::Value::CreateTensor<int32_t>(memory_, positions32_.data(), chunk, shape, 2)
                                : Ort::Value::CreateTensor<int64_t>(memory_, positions64_.data(), chunk, shape, 2));
  }
}

void StepTensors::PrepareLogits() {
  const int64_t rows = logits_last_only_ ? 1 : chunk_;
  if (rows == logits_rows_) return;
  logits_rows_ = rows;
  const size_t bytes = static_cast<size_t>(rows * vocab_size_) * ElementSize(logits_type_);
  // Grown for a prompt chunk, shrunk back once for the first one-token step so that decoding does not keep the
  // prompt's rows x vocab buffer; both happen once per generation, never per token.
  if (logits_capacity_ < bytes || (rows == 1 && logits_capacity_ > bytes)) {
    values_[kLogits] = Ort::Value(nullptr);  // the old view goes with its buffer (a binding may still hold it
    logits_.reset();                         // until it is given the new one, but never reads it again)
    logits_.reset(new std::byte[bytes]);
    logits_capacity_ = bytes;
  }
  const int64_t shape[] = {1, rows, vocab_size_};
  Set(kLogits, Ort::Value::CreateTensor(memory_, logits_.get(), bytes, shape, 3, logits_type_));
}

void StepTensors::Set(Slot slot, Ort::Value value) {
  values_[slot] = std::move(value);
  ++versions_[slot];
}

const Ort::Value& StepTensors::CurrentValue(Slot slot) const {
  return slot == kMask ? mask_views_[static_cast<size_t>(versions_[kMask] - 1)] : values_[slot];
}

void StepTensors::Bind(Ort::IoBinding& binding, const std::string& name, Slot slot, bool output, Bound& bound) {
  if (bound.versions_[slot] == versions_[slot]) return;
  if (output) {
    binding.BindOutput(name.c_str(), CurrentValue(slot));
  } else {
    binding.BindInput(name.c_str(), CurrentValue(slot));
  }
  bound.versions_[slot] = versions_[slot];
}

void StepTensors::BindInput(Ort::IoBinding& binding, const std::string& name, Bound& bound) {
  const Slot slot = name == names_.input_ids                 ? kIds
                    : name == names_.attention_mask          ? kMask
                    : name == names_.position_ids            ? kPositions
                    : name == names_.past_sequence_length    ? kPastLength
                    : name == names_.current_sequence_length ? kCurrentLength
                                                             : kTotalLength;
  Bind(binding, name, slot, false, bound);
}

void StepTensors::BindLogits(Ort::IoBinding& binding, Bound& bound) {
  Bind(binding, names_.logits, kLogits, true, bound);
}

std::span<const float> LogitsRowAsFloat(ONNXTensorElementDataType type, const std::byte* row, size_t vocab,
                                        std::vector<float>& converted) {
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) return {reinterpret_cast<const float*>(row), vocab};
  converted.resize(vocab);
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    const auto* values = reinterpret_cast<const Ort::Float16_t*>(row);
    for (size_t i = 0; i < vocab; ++i) converted[i] = values[i].ToFloat();
  } else {
    const auto* values = reinterpret_cast<const Ort::BFloat16_t*>(row);
    for (size_t i = 0; i < vocab; ++i) converted[i] = values[i].ToFloat();
  }
  return converted;
}

std::span<const float> StepTensors::LastLogits() {
  const int64_t rows = logits_last_only_ ? 1 : chunk_;
  const size_t offset = static_cast<size_t>((rows - 1) * vocab_size_) * ElementSize(logits_type_);
  return LogitsRowAsFloat(logits_type_, logits_.get() + offset, static_cast<size_t>(vocab_size_), converted_);
}

}  // namespace modelkit::generate
