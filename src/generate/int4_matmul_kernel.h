// The int4 matrix multiply of a `MatMulNBits` node (4-bit symmetric weights in blocks of 32 along K, fp32 scales,
// `accuracy_level` 4) on x86-64 CPUs with AVX-512 VNNI, written for batch-1 generation.
//
// It computes what ONNX Runtime's MatMulNBits computes at accuracy_level 4, bit for bit: each row of A is quantised
// to int8 per block of 32 (scale = max|a| / 127, values rounded to nearest even), the integer dot products are exact,
// and the fp32 sums are made in the order of ORT's AVX-512 VNNI kernel (int4_matmul_kernel.cpp spells it out), so
// that a bundle generates exactly the tokens it generates on ORT's kernel.
//
// Why: a decode step multiplies one row by every weight matrix, so it is bound by how fast the weights stream from
// memory. The weights are repacked once, at load, so that one tile of 16 output columns reads one contiguous run of
// memory per block (weights and scales together), and a block of 16 columns takes 8 VNNI dot products of 64 bytes.
// docs/performance.md has the measurements against ORT's kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace modelkit::generate {

// Elements per quantisation block along K, for the weights and for the quantised rows of A.
inline constexpr size_t kInt4BlockSize = 32;
// Output columns computed together: one 512-bit register of fp32 sums.
inline constexpr size_t kInt4TileColumns = 16;

// Whether this CPU runs the kernel (AVX-512 F, BW and VNNI).
bool Int4KernelSupported();

// A K x N weight matrix repacked for the kernel.
class PackedInt4Matrix {
 public:
  // `qweight` as MatMulNBits stores it: [N][K/32][16] bytes, element 2j of a block in the low nibble of byte j, the
  // zero point 8; `scales` [N][K/32]. `k` must be a positive multiple of kInt4BlockSize and `n` positive. The
  // columns are packed a band at a time, and `columns_packed`, when given, is called with each band's bytes of
  // `qweight` and then of `scales` once packing has read them for the last time (in order, covering both arrays), so
  // that their memory can be given back while the rest is packed.
  PackedInt4Matrix(const uint8_t* qweight, const float* scales, size_t k, size_t n,
                   const std::function<void(const void* data, size_t bytes)>& columns_packed = nullptr);

  size_t k() const { return k_; }
  size_t n() const { return n_; }
  size_t blocks() const { return k_ / kInt4BlockSize; }
  size_t tiles() const { return (n_ + kInt4TileColumns - 1) / kInt4TileColumns; }
  // Block `block` of tile `tile`: 256 bytes of weights, then 16 fp32 scales (zero for columns past N).
  const uint8_t* Block(size_t tile, size_t block) const {
    return data_.get() + (tile * blocks() + block) * kBlockBytes;
  }

  // Bytes per packed block: 16 columns x 32 nibbles, then 16 scales.
  static constexpr size_t kBlockBytes = kInt4TileColumns * kInt4BlockSize / 2 + kInt4TileColumns * sizeof(float);

 private:
  size_t k_ = 0, n_ = 0;
  std::unique_ptr<uint8_t[]> data_;
};

// Rows of A quantised to int8 per block of 32, as ORT's MatMulNBits does at accuracy_level 4.
struct QuantizedRows {
  size_t rows = 0, k = 0;
  std::vector<int8_t> values;     // [rows][k]
  std::vector<float> scales;      // [rows][k/32]
  std::vector<float> block_sums;  // [rows][k/32]: scale x the sum of the block's int8 values, rounded to fp32
};

// Quantises `rows` rows of `k` floats at `a` into `out`, reusing its storage (it grows, never shrinks).
void QuantizeRows(const float* a, size_t rows, size_t k, QuantizedRows& out);

// C[row][column] for rows [row_begin, row_end) of `a` and the columns of tiles [tile_begin, tile_end) of `b`; `c`
// is row-major with `b.n()` columns. Only the named rows and columns of `c` are written.
void MultiplyInt4Tiles(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row_begin, size_t row_end,
                       size_t tile_begin, size_t tile_end, float* c);

}  // namespace modelkit::generate
