#include "windowed_inputs.h"

#include <algorithm>

#include "kv_cache.h"
#include "modelkit/base/check.h"
#include "modelkit/base/error.h"
#include "step_tensors.h"

namespace modelkit::generate {
namespace {

// A view of `values64` as the declared type (`values32` holds the int32 copy).
Ort::Value IntView(const Ort::MemoryInfo& memory, ONNXTensorElementDataType type, std::vector<int64_t>& values64,
                   std::vector<int32_t>& values32, int64_t length) {
  const int64_t shape[] = {1, length};
  values64.assign(static_cast<size_t>(length), 0);
  values32.assign(static_cast<size_t>(length), 0);
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
    return Ort::Value::CreateTensor<int32_t>(memory, values32.data(), values32.size(), shape, 2);
  }
  return Ort::Value::CreateTensor<int64_t>(memory, values64.data(), values64.size(), shape, 2);
}

void CopyToInt32(const std::vector<int64_t>& from, std::vector<int32_t>& to) {
  std::transform(from.begin(), from.end(), to.begin(), [](int64_t v) { return static_cast<int32_t>(v); });
}

}  // namespace

WindowedInputs::WindowedInputs(const TensorNames& names, int64_t vocab_size, int64_t context_length)
    : names_(names),
      vocab_size_(vocab_size),
      context_length_(context_length),
      memory_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {}

void WindowedInputs::Observe(const Ort::Session& session, const std::string& where) {
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    const std::string name = session.GetInputNameAllocated(i, allocator).get();
    if (name == names_.past_sequence_length || name == names_.current_sequence_length ||
        name == names_.total_sequence_length) {
      throw Error(ExitCode::kInvalidModel, where + ": input '" + name +
                                               "' is not fed with model.decoder.sliding_window (the windowed layout "
                                               "feeds input_ids, attention_mask and position_ids)");
    }
    if (!IsManagedInput(name)) continue;
    const ONNXTensorElementDataType type = session.GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetElementType();
    if (!IsIntType(type)) throw Error(ExitCode::kInvalidModel, where + ": input '" + name + "' must be int32 or int64");
    (name == names_.input_ids ? ids_type_ : name == names_.attention_mask ? mask_type_ : positions_type_) = type;
  }
  if (const auto logits = ObserveLogitsOutput(session, names_.logits, vocab_size_, where)) {
    logits_type_ = logits->type;
    logits_last_only_ = logits->last_only;
  }
}

bool WindowedInputs::IsManagedInput(const std::string& name) const {
  return name == names_.input_ids || name == names_.attention_mask || name == names_.position_ids;
}

void WindowedInputs::MakeValues(int64_t window) {
  window_ = window;
  ids_value_ = IntView(memory_, ids_type_, ids64_, ids32_, window);
  positions_value_ = IntView(memory_, positions_type_, positions64_, positions32_, window);
  mask_value_ = IntView(memory_, mask_type_, mask64_, mask32_, context_length_);
  const int64_t rows = logits_last_only_ ? 1 : window;
  logits_.assign(static_cast<size_t>(rows * vocab_size_) * ElementSize(logits_type_), std::byte{0});
  const int64_t shape[] = {1, rows, vocab_size_};
  logits_value_ = Ort::Value::CreateTensor(memory_, logits_.data(), logits_.size(), shape, 3, logits_type_);
  ++version_;
}

void WindowedInputs::Prepare(std::span<const int64_t> tokens, int64_t pads, int64_t position, int64_t filled,
                             int64_t slots) {
  const int64_t window = static_cast<int64_t>(tokens.size());
  MODELKIT_CHECK(window > 0 && pads >= 0 && pads < window && filled <= slots && slots + window == context_length_);
  if (window != window_) MakeValues(window);
  // Pad rows: the pad id at position 0, masked (as onnxruntime-genai feeds them); real rows count on from `position`.
  for (int64_t i = 0; i < window; ++i) {
    ids64_[static_cast<size_t>(i)] = tokens[static_cast<size_t>(i)];
    positions64_[static_cast<size_t>(i)] = i < pads ? 0 : position + i - pads;
  }
  // The mask: filled slots, empty slots, then the window's rows.
  std::fill(mask64_.begin(), mask64_.begin() + filled, 1);
  std::fill(mask64_.begin() + filled, mask64_.begin() + slots, 0);
  for (int64_t i = 0; i < window; ++i) mask64_[static_cast<size_t>(slots + i)] = i < pads ? 0 : 1;
  if (ids_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) CopyToInt32(ids64_, ids32_);
  if (positions_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) CopyToInt32(positions64_, positions32_);
  if (mask_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) CopyToInt32(mask64_, mask32_);
}

const Ort::Value& WindowedInputs::Input(const std::string& name) const {
  return name == names_.input_ids ? ids_value_ : name == names_.attention_mask ? mask_value_ : positions_value_;
}

std::span<const float> WindowedInputs::LastLogits() {
  const int64_t rows = logits_last_only_ ? 1 : window_;
  const size_t offset = static_cast<size_t>((rows - 1) * vocab_size_) * ElementSize(logits_type_);
  return LogitsRowAsFloat(logits_type_, logits_.data() + offset, static_cast<size_t>(vocab_size_), converted_);
}

}  // namespace modelkit::generate
