// modelkit's own ONNX Runtime custom ops, in the domain `com.modelkit` on the CPU EP: `MatMulInt4`
// (int4_matmul_op.h), `MatMulFp32` (fp32_matmul_op.h) and `GroupQueryAttention` (decode_attention_op.h). Graphs use
// them only where a load-time rewrite (kernel_rewrites.h) put them; and the helpers the ops share.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <string>

namespace modelkit::generate {

inline constexpr const char* kModelkitOpsDomain = "com.modelkit";

// Registers the domain with its ops with `options`. A session whose graph uses one of them must be made with it.
void AddModelkitOps(Ort::SessionOptions& options);

// An ORT status carrying `message` (ORT_FAIL).
OrtStatusPtr StatusOf(const std::string& message);

// Input `index` of the node being made, which must be a constant initializer of `type` with `elements` elements.
// Throws Ort::Exception naming `node` otherwise.
Ort::ConstValue ConstantInput(const Ort::ConstKernelInfo& info, size_t index, ONNXTensorElementDataType type,
                              size_t elements, const std::string& node);

// Runs `make` (which creates a kernel) or `compute`, turning what it throws into a status prefixed by `op` (ORT's
// status-returning custom op API lets nothing propagate).
template <typename Action>
OrtStatusPtr StatusOfRunning(const char* op, Action&& action) {
  try {
    action();
    return nullptr;
  } catch (const Ort::Exception& error) {
    return StatusOf(error.what());
  } catch (const std::exception& error) {
    return StatusOf(std::string(op) + ": " + error.what());
  }
}

// Input A of a matrix multiply by a K x N matrix and its output Y, made with A's shape and last dimension N.
struct MatMulIo {
  const float* a = nullptr;
  float* y = nullptr;
  size_t rows = 0;  // the product of A's dimensions but the last
};
// Throws Ort::Exception naming `op` when A's last dimension is not `k`.
MatMulIo BindMatMul(Ort::KernelContext& context, size_t k, size_t n, const char* op);

// Rows of A one work item multiplies: enough to reuse the weights each item reads from memory, few enough that the
// rows stay in the core's caches while the item walks its tiles.
inline constexpr size_t kMatMulRowsPerItem = 64;
// Work items per run, over the intra-op threads: more than the threads, so that one delayed thread does not hold the
// others up for long, and few enough that each item streams a long contiguous run of weights.
inline constexpr size_t kMatMulItemsPerRun = 16;

// Calls `multiply(row_begin, row_end, tile_begin, tile_end)` for work items covering `rows` x `tiles`, on the
// session's intra-op threads.
template <typename Multiply>
void ParallelMatMul(Ort::KernelContext& context, size_t rows, size_t tiles, const Multiply& multiply) {
  struct Work {
    const Multiply* multiply;
    size_t rows, tiles, row_items, tiles_per_item;
  };
  Work work{&multiply, rows, tiles, (rows + kMatMulRowsPerItem - 1) / kMatMulRowsPerItem, 0};
  const size_t tile_items = std::clamp<size_t>(kMatMulItemsPerRun / work.row_items, 1, tiles);
  work.tiles_per_item = (tiles + tile_items - 1) / tile_items;
  const auto run_item = [](void* data, size_t item) {
    const Work& w = *static_cast<const Work*>(data);
    const size_t row_item = item % w.row_items, tile_item = item / w.row_items;
    const size_t row_begin = row_item * kMatMulRowsPerItem, row_end = std::min(w.rows, row_begin + kMatMulRowsPerItem);
    const size_t tile_begin = tile_item * w.tiles_per_item, tile_end = std::min(w.tiles, tile_begin + w.tiles_per_item);
    if (tile_begin < tile_end) (*w.multiply)(row_begin, row_end, tile_begin, tile_end);
  };
  context.ParallelFor(run_item, work.row_items * tile_items, 0, &work);
}

}  // namespace modelkit::generate
