#include "windowed_kv_cache.h"

#include <cstring>

#include "modelkit/base/check.h"

namespace modelkit::generate {

WindowedKvCache::WindowedKvCache(const GenaiConfig& config, ONNXTensorElementDataType type)
    : layers_(config.decoder.num_hidden_layers),
      kv_heads_(config.decoder.num_key_value_heads),
      head_size_(config.decoder.head_size),
      context_length_(config.context_length),
      pad_value_(config.decoder.sliding_window->pad_value),
      type_(type),
      element_size_(ElementSize(type)),
      memory_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {
  MODELKIT_CHECK(element_size_ > 0);
  const TensorNames& names = config.decoder.names;
  for (int64_t l = 0; l < layers_; ++l) {
    past_names_[LayerName(names.past_key_names, l)] = static_cast<size_t>(2 * l);
    past_names_[LayerName(names.past_value_names, l)] = static_cast<size_t>(2 * l + 1);
    present_names_[LayerName(names.present_key_names, l)] = static_cast<size_t>(2 * l);
    present_names_[LayerName(names.present_value_names, l)] = static_cast<size_t>(2 * l + 1);
  }
  const int64_t window = config.decoder.sliding_window->window_size;
  Use(NewPast(context_length_ - window), window);
}

std::optional<size_t> WindowedKvCache::PastIndex(const std::string& name) const {
  const auto it = past_names_.find(name);
  return it == past_names_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> WindowedKvCache::PresentIndex(const std::string& name) const {
  const auto it = present_names_.find(name);
  return it == present_names_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

Ort::Value WindowedKvCache::View(std::byte* data, size_t bytes, bool key, int64_t length) const {
  const int64_t key_shape[] = {kv_heads_, 1, head_size_, length};
  const int64_t value_shape[] = {kv_heads_, 1, length, head_size_};
  return Ort::Value::CreateTensor(memory_, data, bytes, key ? key_shape : value_shape, 4, type_);
}

std::vector<ZeroedBuffer> WindowedKvCache::NewPast(int64_t slots) const {
  std::vector<ZeroedBuffer> past(static_cast<size_t>(2 * layers_));
  for (ZeroedBuffer& buffer : past) {
    // Zero pages cost nothing until written. A uint8 cache onnxruntime-genai would fill with another pad_value is
    // filled the same: the slots are masked either way, but the model sees the bytes it would see there.
    buffer = ZeroedBuffer(static_cast<size_t>(kv_heads_ * head_size_ * slots) * element_size_);
    if (pad_value_ != 0 && type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8) {
      std::memset(buffer.data(), pad_value_, buffer.size());
    }
  }
  return past;
}

void WindowedKvCache::Use(std::vector<ZeroedBuffer> past, int64_t window) {
  past_ = std::move(past);
  window_ = window;
  const size_t present_bytes = static_cast<size_t>(kv_heads_ * head_size_ * window) * element_size_;
  present_.assign(past_.size(), std::vector<std::byte>(present_bytes));
  past_values_.clear();
  present_values_.clear();
  for (size_t i = 0; i < past_.size(); ++i) {
    past_values_.push_back(View(past_[i].data(), past_[i].size(), i % 2 == 0, slots()));
    present_values_.push_back(View(present_[i].data(), present_bytes, i % 2 == 0, window));
  }
  ++version_;
}

void WindowedKvCache::CopyPast(const std::vector<ZeroedBuffer>& from, int64_t from_slots, std::vector<ZeroedBuffer>& to,
                               int64_t to_slots) const {
  const size_t es = element_size_;
  for (size_t i = 0; i < from.size(); ++i) {
    if (i % 2 == 0) {  // keys: one row of slots per (head, channel)
      for (int64_t row = 0; row < kv_heads_ * head_size_; ++row) {
        std::memcpy(to[i].data() + static_cast<size_t>(row * to_slots) * es,
                    from[i].data() + static_cast<size_t>(row * from_slots) * es, static_cast<size_t>(filled_) * es);
      }
    } else {  // values: one block of slots x head_size per head
      for (int64_t head = 0; head < kv_heads_; ++head) {
        std::memcpy(to[i].data() + static_cast<size_t>(head * to_slots * head_size_) * es,
                    from[i].data() + static_cast<size_t>(head * from_slots * head_size_) * es,
                    static_cast<size_t>(filled_ * head_size_) * es);
      }
    }
  }
}

void WindowedKvCache::CopyPresents(std::vector<ZeroedBuffer>& past, int64_t slots, int64_t first_row) const {
  const int64_t rows = window_ - first_row;
  MODELKIT_CHECK(first_row >= 0 && rows >= 0 && filled_ + rows <= slots);
  const size_t es = element_size_;
  for (size_t i = 0; i < past.size(); ++i) {
    const std::byte* present = present_[i].data();
    std::byte* to = past[i].data();
    if (i % 2 == 0) {
      for (int64_t row = 0; row < kv_heads_ * head_size_; ++row) {
        std::memcpy(to + static_cast<size_t>(row * slots + filled_) * es,
                    present + static_cast<size_t>(row * window_ + first_row) * es, static_cast<size_t>(rows) * es);
      }
    } else {
      for (int64_t head = 0; head < kv_heads_; ++head) {
        std::memcpy(to + static_cast<size_t>((head * slots + filled_) * head_size_) * es,
                    present + static_cast<size_t>((head * window_ + first_row) * head_size_) * es,
                    static_cast<size_t>(rows * head_size_) * es);
      }
    }
  }
}

void WindowedKvCache::Append(int64_t first_row) {
  CopyPresents(past_, slots(), first_row);
  filled_ += window_ - first_row;
}

void WindowedKvCache::StartTokens(int64_t first_row) {
  const int64_t token_slots = context_length_ - 1;
  std::vector<ZeroedBuffer> past = NewPast(token_slots);
  CopyPast(past_, slots(), past, token_slots);
  CopyPresents(past, token_slots, first_row);
  filled_ += window_ - first_row;
  Use(std::move(past), 1);
}

size_t WindowedKvCache::bytes() const {
  size_t total = 0;
  for (const ZeroedBuffer& buffer : past_) total += buffer.size();
  for (const auto& buffer : present_) total += buffer.size();
  return total;
}

}  // namespace modelkit::generate
