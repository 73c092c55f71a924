// The decoder's KV cache, batch 1: per layer one key and one value tensor [1, kv_heads, length, head_size] in the
// model's KV element type. Two modes, as in onnxruntime-genai: a growing cache whose `present` outputs become the next
// step's `past`, or one zeroed max-length buffer per tensor bound as both past and present and updated in place.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/generate/config.h"

namespace modelkit::generate {

// Zero-filled bytes mapped straight from the operating system (anonymous pages): a page becomes resident only when it
// is first written, so a max-length buffer costs memory for the positions used so far, not for the whole length.
// Reading an unwritten page gives zeros without making it resident.
class ZeroedBuffer {
 public:
  ZeroedBuffer() = default;
  // Throws std::bad_alloc when the mapping fails.
  explicit ZeroedBuffer(size_t bytes);
  ~ZeroedBuffer();
  ZeroedBuffer(ZeroedBuffer&& other) noexcept;
  ZeroedBuffer& operator=(ZeroedBuffer&& other) noexcept;
  ZeroedBuffer(const ZeroedBuffer&) = delete;
  ZeroedBuffer& operator=(const ZeroedBuffer&) = delete;

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

  // Makes bytes [begin, end) resident now, in one system call (widened to whole pages). Returns false when the kernel
  // cannot (no MADV_POPULATE_WRITE); the pages then fault in when written, as before.
  bool Populate(size_t begin, size_t end) const;

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

class KvCache {
 public:
  // `shared_length` > 0 selects the shared-buffer mode with buffers of that many positions.
  KvCache(const DecoderConfig& decoder, ONNXTensorElementDataType type, int64_t shared_length);

  bool shared() const { return shared_length_ > 0; }
  int64_t shared_length() const { return shared_length_; }
  int64_t past_length() const { return past_length_; }
  ONNXTensorElementDataType type() const { return type_; }

  // Index of a past or present tensor name (layer * 2 + 0 for keys, + 1 for values), or nullopt.
  std::optional<size_t> PastIndex(const std::string& name) const;
  std::optional<size_t> PresentIndex(const std::string& name) const;

  // The past tensor `index` for a step feeding `chunk` tokens (a view, no copy).
  Ort::Value Past(size_t index);
  // The present tensor `index` for a step feeding `chunk` tokens: the shared buffer, or a fresh buffer of
  // past + chunk positions that Commit() turns into the next past.
  Ort::Value Present(size_t index, int64_t chunk);

  // Before a step of `chunk` tokens, shared mode: when the step writes positions not yet resident, makes them and
  // kResidentAhead more resident, one system call per tensor and head, instead of taking one page fault per page as
  // the model writes them (a fault costs microseconds, more in a virtual machine, and a decode step would take one
  // per tensor and head every few tokens). So a decode step makes system calls once per kResidentAhead tokens, and
  // at most kResidentAhead unwritten positions are resident. A no-op in growing mode and where the kernel lacks
  // MADV_POPULATE_WRITE (Linux < 5.14): there pages fault in as they are written.
  void Reserve(int64_t chunk);

  // After a successful step of `chunk` tokens: growing mode swaps presents into pasts; both advance past_length.
  void Commit(int64_t chunk);

  // Positions made resident ahead of the one being written (Reserve).
  static constexpr int64_t kResidentAhead = 64;

  // Bytes held by the cache now (for shared buffers: their full size, of which only written pages are resident).
  size_t bytes() const;

 private:
  Ort::Value View(std::byte* data, size_t bytes, int64_t length);

  int64_t layers_;
  int64_t kv_heads_;
  int64_t head_size_;
  ONNXTensorElementDataType type_;
  size_t element_size_;
  int64_t shared_length_;
  int64_t past_length_ = 0;
  int64_t resident_length_ = 0;  // shared mode: positions [0, resident_length_) are resident in every buffer
  bool populate_supported_ = true;
  std::map<std::string, size_t> past_names_;
  std::map<std::string, size_t> present_names_;
  std::vector<ZeroedBuffer> shared_;             // shared mode only
  std::vector<std::vector<std::byte>> past_;     // growing mode only
  std::vector<std::vector<std::byte>> present_;  // growing mode only
  std::vector<bool> present_written_;
  std::byte empty_[16] = {};  // data pointer for zero-length pasts
  Ort::MemoryInfo memory_;
};

// Bytes per element of the tensor types the runtime handles (fp32, fp16, bf16, int32, int64, uint8); 0 for others.
size_t ElementSize(ONNXTensorElementDataType type);

}  // namespace modelkit::generate
