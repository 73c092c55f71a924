#include "kv_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include <new>
#include <utility>

namespace modelkit::generate {

size_t ElementSize(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      return 2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      return 8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      return 1;
    default:
      return 0;
  }
}

ZeroedBuffer::ZeroedBuffer(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(map);
}

bool ZeroedBuffer::Populate(size_t begin, size_t end) const {
#ifdef MADV_POPULATE_WRITE
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  end = std::min(end, size_);
  if (begin >= end) return true;
  begin -= begin % page;  // mmap returned a page-aligned base
  return ::madvise(data_ + begin, end - begin, MADV_POPULATE_WRITE) == 0;
#else
  (void)begin;
  (void)end;
  return false;
#endif
}

ZeroedBuffer::~ZeroedBuffer() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

ZeroedBuffer::ZeroedBuffer(ZeroedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ZeroedBuffer& ZeroedBuffer::operator=(ZeroedBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

KvCache::KvCache(const DecoderConfig& decoder, ONNXTensorElementDataType type, int64_t shared_length)
    : layers_(decoder.num_hidden_layers),
      kv_heads_(decoder.num_key_value_heads),
      head_size_(decoder.head_size),
      type_(type),
      element_size_(ElementSize(type)),
      shared_length_(shared_length),
      memory_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {
  for (int64_t l = 0; l < layers_; ++l) {
    past_names_[LayerName(decoder.names.past_key_names, l)] = static_cast<size_t>(2 * l);
    past_names_[LayerName(decoder.names.past_value_names, l)] = static_cast<size_t>(2 * l + 1);
    present_names_[LayerName(decoder.names.present_key_names, l)] = static_cast<size_t>(2 * l);
    present_names_[LayerName(decoder.names.present_value_names, l)] = static_cast<size_t>(2 * l + 1);
  }
  const size_t tensors = static_cast<size_t>(2 * layers_);
  if (shared()) {
    // Zeroed, as the model may read positions it has not written (masked), but resident only where written: a
    // context-length buffer must not cost context-length memory for a short generation.
    for (size_t i = 0; i < tensors; ++i) {
      shared_.emplace_back(static_cast<size_t>(kv_heads_ * shared_length_ * head_size_) * element_size_);
    }
  } else {
    past_.resize(tensors);
    present_.resize(tensors);
    present_written_.assign(tensors, false);
  }
}

std::optional<size_t> KvCache::PastIndex(const std::string& name) const {
  const auto it = past_names_.find(name);
  return it == past_names_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> KvCache::PresentIndex(const std::string& name) const {
  const auto it = present_names_.find(name);
  return it == present_names_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

Ort::Value KvCache::View(std::byte* data, size_t bytes, int64_t length) {
  const int64_t shape[] = {1, kv_heads_, length, head_size_};
  return Ort::Value::CreateTensor(memory_, bytes == 0 ? static_cast<void*>(empty_) : data, bytes, shape, 4, type_);
}

Ort::Value KvCache::Past(size_t index) {
  if (shared()) return View(shared_[index].data(), shared_[index].size(), shared_length_);
  return View(past_[index].data(), past_[index].size(), past_length_);
}

Ort::Value KvCache::Present(size_t index, int64_t chunk) {
  if (shared()) return View(shared_[index].data(), shared_[index].size(), shared_length_);
  const int64_t total = past_length_ + chunk;
  std::vector<std::byte>& buffer = present_[index];
  // resize, not assign: the model writes every element, so a reused buffer needs no clearing.
  buffer.resize(static_cast<size_t>(kv_heads_ * total * head_size_) * element_size_);
  present_written_[index] = true;
  return View(buffer.data(), buffer.size(), total);
}

void KvCache::Reserve(int64_t chunk) {
  if (!shared() || !populate_supported_ || past_length_ + chunk <= resident_length_) return;
  const int64_t end = std::min(shared_length_, past_length_ + chunk + kResidentAhead);
  // Each buffer is [kv_heads, shared_length, head_size]: a head's positions are contiguous.
  const size_t row = static_cast<size_t>(head_size_) * element_size_;
  const size_t head_bytes = static_cast<size_t>(shared_length_) * row;
  for (const ZeroedBuffer& buffer : shared_) {
    for (int64_t head = 0; head < kv_heads_ && populate_supported_; ++head) {
      const size_t base = static_cast<size_t>(head) * head_bytes;
      populate_supported_ =
          buffer.Populate(base + static_cast<size_t>(resident_length_) * row, base + static_cast<size_t>(end) * row);
    }
  }
  resident_length_ = end;
}

void KvCache::Commit(int64_t chunk) {
  if (!shared()) {
    for (size_t i = 0; i < past_.size(); ++i) {
      if (present_written_[i]) std::swap(past_[i], present_[i]);
      present_written_[i] = false;
    }
  }
  past_length_ += chunk;
}

size_t KvCache::bytes() const {
  size_t total = 0;
  for (const auto& buffer : shared_) total += buffer.size();
  for (const auto& buffer : past_) total += buffer.capacity();
  for (const auto& buffer : present_) total += buffer.capacity();
  return total;
}

}  // namespace modelkit::generate
