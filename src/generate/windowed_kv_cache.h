// The KV cache of the windowed layout (model.decoder.sliding_window), batch 1. Per layer, past keys
// [kv_heads, 1, head_size, slots] and past values [kv_heads, 1, slots, head_size], where slots = context_length -
// window; the stage writes presents of one window ([kv_heads, 1, head_size, window], [kv_heads, 1, window,
// head_size]). The window is window_size while the prompt runs, then 1.
//
// Where onnxruntime-genai keeps the past right-aligned and shifts every slot of every tensor after each run (the
// whole cache, once per token), this cache fills the slots from the left in arrival order and copies only the new
// positions: the attention mask marks the filled slots, and attention over masked keys does not depend on where a
// key sits (its position is in its rotary embedding, applied before it was cached). So the logits are the same up to
// float summation order, and a token step moves kilobytes instead of the cache. Pad positions of the prompt are never
// stored. Models that derive positions from the mask's layout instead of position_ids would need the shifted layout.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kv_cache.h"
#include "modelkit/generate/config.h"

namespace modelkit::generate {

class WindowedKvCache {
 public:
  // Starts in the prompt phase (window = sliding_window.window_size). `type`: uint8, fp32, fp16 or bf16.
  WindowedKvCache(const GenaiConfig& config, ONNXTensorElementDataType type);

  int64_t window() const { return window_; }
  int64_t slots() const { return context_length_ - window_; }
  // Past slots holding positions: [0, filled()).
  int64_t filled() const { return filled_; }
  // Changes whenever the tensors below are replaced (their bindings must be renewed).
  uint64_t version() const { return version_; }

  // Index of a past or present tensor name (layer * 2 + 0 for keys, + 1 for values), or nullopt.
  std::optional<size_t> PastIndex(const std::string& name) const;
  std::optional<size_t> PresentIndex(const std::string& name) const;
  const Ort::Value& Past(size_t index) const { return past_values_[index]; }
  const Ort::Value& Present(size_t index) const { return present_values_[index]; }

  // After a run: stores the presents' rows [first_row, window) (the window's real positions) in the next slots.
  // Requires room (checked: abort otherwise).
  void Append(int64_t first_row);
  // After the prompt's last run: switches to windows of 1 with context_length - 1 slots, holding what the past held
  // followed by the presents' rows [first_row, window).
  void StartTokens(int64_t first_row);

  size_t bytes() const;

 private:
  // Past buffers of `slots` slots, filled as onnxruntime-genai fills them (pad_value).
  std::vector<ZeroedBuffer> NewPast(int64_t slots) const;
  // Makes `past` the past buffers and presents of `window` positions, with their views.
  void Use(std::vector<ZeroedBuffer> past, int64_t window);
  // Copies the presents' rows [first_row, window_) to slots [filled_, ...) of `past` buffers with `slots` slots.
  void CopyPresents(std::vector<ZeroedBuffer>& past, int64_t slots, int64_t first_row) const;
  void CopyPast(const std::vector<ZeroedBuffer>& from, int64_t from_slots, std::vector<ZeroedBuffer>& to,
                int64_t to_slots) const;
  Ort::Value View(std::byte* data, size_t bytes, bool key, int64_t length) const;

  int64_t layers_;
  int64_t kv_heads_;
  int64_t head_size_;
  int64_t context_length_;
  int pad_value_;
  ONNXTensorElementDataType type_;
  size_t element_size_;
  int64_t window_ = 0;
  int64_t filled_ = 0;
  uint64_t version_ = 0;
  std::map<std::string, size_t> past_names_;
  std::map<std::string, size_t> present_names_;
  std::vector<ZeroedBuffer> past_;
  std::vector<std::vector<std::byte>> present_;
  std::vector<Ort::Value> past_values_;
  std::vector<Ort::Value> present_values_;
  Ort::MemoryInfo memory_;
};

}  // namespace modelkit::generate
