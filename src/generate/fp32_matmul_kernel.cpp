#include "fp32_matmul_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "modelkit/base/check.h"

// GCC 12's AVX-512 headers make their "undefined" vectors by initialising a variable with itself, which
// -Wuninitialized reports wherever such an intrinsic is inlined (a known false positive, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The kernel functions carry their own target so that the rest of the binary runs on any x86-64; callers check
// Fp32KernelSupported() first.
#define MODELKIT_AVX512 __attribute__((target("avx512f")))

namespace modelkit::generate {
namespace {

// How far ahead of the row of a tile being read its stream is prefetched.
constexpr size_t kPrefetchFloats = 1024;  // 4 KiB
// Rows of B packed per band. A band's source rows are read for every tile (16 rows x 2 cache lines per tile, in L1
// for the next tile's columns) and then never again, so they can be given back before the next band: the source of
// a 151669-column lm_head (593 MiB) is then at most 9.7 MB resident at a time, not all of it.
constexpr size_t kPackBandRows = 16;

// kRows rows of A times kTiles adjacent tiles. Each output keeps its own chain of fused multiply-adds over a run of
// K (ORT's order), so the kRows x kTiles chains run side by side and hide each other's latency.
template <size_t kRows, size_t kTiles>
MODELKIT_AVX512 void MultiplyBlock(const PackedFp32Matrix& b, const float* a, size_t row, size_t tile, float* c) {
  const size_t k = b.k();
  __m512 out[kRows][kTiles];
  for (size_t run = 0; run < k; run += kFp32SumRun) {
    __m512 sums[kRows][kTiles];
#pragma GCC unroll 4
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (size_t t = 0; t < kTiles; ++t) sums[r][t] = _mm512_setzero_ps();
    }
    const size_t run_end = std::min(k, run + kFp32SumRun);
    for (size_t kk = run; kk < run_end; ++kk) {
      __m512 weights[kTiles];
#pragma GCC unroll 4
      for (size_t t = 0; t < kTiles; ++t) {
        const float* line = b.Tile(tile + t) + kk * kFp32TileColumns;
        _mm_prefetch(reinterpret_cast<const char*>(line + kPrefetchFloats), _MM_HINT_T0);
        weights[t] = _mm512_loadu_ps(line);
      }
#pragma GCC unroll 4
      for (size_t r = 0; r < kRows; ++r) {
        const __m512 value = _mm512_set1_ps(a[(row + r) * k + kk]);
#pragma GCC unroll 4
        for (size_t t = 0; t < kTiles; ++t) sums[r][t] = _mm512_fmadd_ps(value, weights[t], sums[r][t]);
      }
    }
#pragma GCC unroll 4
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (size_t t = 0; t < kTiles; ++t) out[r][t] = run == 0 ? sums[r][t] : _mm512_add_ps(out[r][t], sums[r][t]);
    }
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (size_t t = 0; t < kTiles; ++t) {
      const size_t column = (tile + t) * kFp32TileColumns;
      const size_t columns = std::min(kFp32TileColumns, b.n() - column);
      _mm512_mask_storeu_ps(c + (row + r) * b.n() + column, static_cast<__mmask16>((1u << columns) - 1), out[r][t]);
    }
  }
}

// Rows [row, row_end) times one group of kTiles tiles: 4 rows at a time, then the rest.
template <size_t kTiles>
void MultiplyRows(const PackedFp32Matrix& b, const float* a, size_t row, size_t row_end, size_t tile, float* c) {
  for (; row + 4 <= row_end; row += 4) MultiplyBlock<4, kTiles>(b, a, row, tile, c);
  switch (row_end - row) {
    case 3:
      MultiplyBlock<3, kTiles>(b, a, row, tile, c);
      break;
    case 2:
      MultiplyBlock<2, kTiles>(b, a, row, tile, c);
      break;
    case 1:
      MultiplyBlock<1, kTiles>(b, a, row, tile, c);
      break;
    default:
      break;
  }
}

}  // namespace

bool Fp32KernelSupported() { return __builtin_cpu_supports("avx512f"); }

PackedFp32Matrix::PackedFp32Matrix(const float* b, size_t k, size_t n,
                                   const std::function<void(const void* data, size_t bytes)>& rows_packed)
    : k_(k), n_(n), data_(new float[tiles() * k * kFp32TileColumns]) {  // no zero fill: every float is written
  MODELKIT_CHECK(k > 0 && n > 0);
  for (size_t band = 0; band < k; band += kPackBandRows) {
    const size_t band_end = std::min(k, band + kPackBandRows);
    for (size_t tile = 0; tile < tiles(); ++tile) {
      const size_t column = tile * kFp32TileColumns, columns = std::min(kFp32TileColumns, n - column);
      float* packed = data_.get() + tile * k * kFp32TileColumns;
      for (size_t kk = band; kk < band_end; ++kk) {
        std::memcpy(packed + kk * kFp32TileColumns, b + kk * n + column, columns * sizeof(float));
        std::fill(packed + kk * kFp32TileColumns + columns, packed + (kk + 1) * kFp32TileColumns, 0.0f);
      }
    }
    if (rows_packed) rows_packed(b + band * n, (band_end - band) * n * sizeof(float));
  }
}

void MultiplyFp32Tiles(const PackedFp32Matrix& b, const float* a, size_t row_begin, size_t row_end, size_t tile_begin,
                       size_t tile_end, float* c) {
  MODELKIT_CHECK(tile_end <= b.tiles());
  size_t tile = tile_begin;
  // 2 tiles x 4 rows: 8 chains and 8 outputs in registers; the tiles' 2 streams stay in cache for rows after the
  // first. A single row takes 4 tiles at once instead, for 4 chains.
  if (row_end - row_begin == 1) {
    for (; tile + 4 <= tile_end; tile += 4) MultiplyBlock<1, 4>(b, a, row_begin, tile, c);
  }
  for (; tile + 2 <= tile_end; tile += 2) MultiplyRows<2>(b, a, row_begin, row_end, tile, c);
  if (tile < tile_end) MultiplyRows<1>(b, a, row_begin, row_end, tile, c);
}

}  // namespace modelkit::generate
