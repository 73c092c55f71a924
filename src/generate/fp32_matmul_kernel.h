// The fp32 matrix multiply of a `MatMul` node whose B is a constant [K, N] matrix, on x86-64 CPUs with AVX-512,
// written for batch-1 generation.
//
// It computes what ONNX Runtime's MatMul computes on such a node, bit for bit: ORT packs a constant B and sums each
// output over K in runs of 256 (one fused multiply-add per element, in order, from zero), adding each run's sum to
// the output in order. Matching that order keeps a bundle's tokens exactly those it generates on ORT's kernel.
//
// Why: a decode step multiplies one row by every weight matrix, so it is bound by how fast the weights stream from
// memory. The weights are repacked once, at load, so that one tile of 16 output columns is one contiguous run of
// memory, streamed with software prefetching. docs/performance.md has the measurements against ORT's kernel.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace modelkit::generate {

// Output columns computed together: one 512-bit register of fp32 sums.
inline constexpr size_t kFp32TileColumns = 16;
// The run of K that ORT sums on its own before adding it to the output.
inline constexpr size_t kFp32SumRun = 256;

// Whether this CPU runs the kernel (AVX-512 F).
bool Fp32KernelSupported();

// A K x N weight matrix repacked for the kernel: tile t holds columns [16t, 16t + 16) as K rows of 16 floats
// (zeros past N).
class PackedFp32Matrix {
 public:
  // `b` row-major [K][N], as MatMul's B. `k` and `n` must be positive. B is packed a band of rows at a time, and
  // `rows_packed`, when given, is called with each band's bytes of `b` once packing has read them for the last time
  // (in order, covering all of `b`), so that their memory can be given back while the rest is packed.
  PackedFp32Matrix(const float* b, size_t k, size_t n,
                   const std::function<void(const void* data, size_t bytes)>& rows_packed = nullptr);

  size_t k() const { return k_; }
  size_t n() const { return n_; }
  size_t tiles() const { return (n_ + kFp32TileColumns - 1) / kFp32TileColumns; }
  const float* Tile(size_t tile) const { return data_.get() + tile * k_ * kFp32TileColumns; }

 private:
  size_t k_ = 0, n_ = 0;
  std::unique_ptr<float[]> data_;
};

// C[row][column] = A[row] . B[:, column] for rows [row_begin, row_end) of `a` (row-major, b.k() columns) and the
// columns of tiles [tile_begin, tile_end) of `b`; `c` is row-major with b.n() columns. Only those rows and columns of
// `c` are written.
void MultiplyFp32Tiles(const PackedFp32Matrix& b, const float* a, size_t row_begin, size_t row_end, size_t tile_begin,
                       size_t tile_end, float* c);

}  // namespace modelkit::generate
