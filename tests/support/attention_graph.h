// A one-node GroupQueryAttention graph as the builder writes a layer's attention, and a session that runs it the way
// generation does (K/V buffers bound as past and present at once), for the attention kernel's tests and bench.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace modelkit::test {

struct AttentionShape {
  int64_t num_heads = 4, kv_num_heads = 2, head_size = 64;
  int64_t cache_length = 48;   // positions of the shared K/V buffers
  int64_t max_positions = 64;  // rows of the cos/sin caches
  bool interleaved = false;
  bool local_window = false;
};

// Writes the graph into `dir` (attention.onnx with its data file) and returns the model's bytes: separate Q, K, V,
// rotary from constant cos/sin caches (rotary base 10000).
std::string WriteAttentionGraph(const std::filesystem::path& dir, const AttentionShape& shape);

// A session over a model from WriteAttentionGraph (as written or rewritten), with its own K/V buffers of
// shape.cache_length positions, zeros at first.
class AttentionRun {
 public:
  // `threads`: the session's intra-op threads.
  AttentionRun(const std::string& model, const std::filesystem::path& dir, const AttentionShape& shape,
               int threads = 2);

  // Runs `tokens` new tokens after `past` earlier ones; returns the attention output.
  std::vector<float> Step(const std::vector<float>& query, const std::vector<float>& key,
                          const std::vector<float>& value, int64_t tokens, int32_t past);

  std::vector<float>& keys() { return keys_; }
  std::vector<float>& values() { return values_; }

 private:
  AttentionShape shape_;
  std::vector<float> keys_, values_;
  std::unique_ptr<Ort::Session> session_;
};

}  // namespace modelkit::test
