#include "int4_matmul_kernel.h"

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
// Int4KernelSupported() first.
#define MODELKIT_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace modelkit::generate {
namespace {

constexpr size_t kWeightBytes = kInt4TileColumns * kInt4BlockSize / 2;  // per packed block
constexpr uint8_t kZeroPoint = 8;
// How far ahead of the block being multiplied its stream is prefetched.
constexpr size_t kPrefetchBytes = 4096;
// Rows that share one unpacking of a block's weights.
constexpr size_t kRowGroup = 4;

// One block of `rows` rows (1..kRowGroup) times one tile, added into `sums`.
template <size_t kRows>
MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) void MultiplyBlock(const uint8_t* packed,
                                                                              const QuantizedRows& a, size_t row,
                                                                              size_t block, __m512 (&sums)[kRowGroup]) {
  const __m512i low_nibbles = _mm512_set1_epi8(0x0F), high_nibbles = _mm512_set1_epi8(static_cast<char>(0xF0));
  // Group g holds elements 4g..4g+3 of the block for each of the 16 columns as unsigned bytes: packed byte
  // h*64 + column*4 + i has element 8h+i in its low nibble and 8h+4+i in its high one. Even groups are the low
  // nibbles (0..15); odd groups the high nibbles left in place, 16 times their value, so that their dot products
  // are 16 times the true ones and one exact shift per row undoes it (instead of one shift per group).
  // The loops below are unrolled so that `groups` and `sums` live in registers.
  __m512i groups[8];
#pragma GCC unroll 4
  for (size_t h = 0; h < 4; ++h) {
    const __m512i bytes = _mm512_loadu_si512(packed + h * 64);
    groups[2 * h] = _mm512_and_si512(bytes, low_nibbles);
    groups[2 * h + 1] = _mm512_and_si512(bytes, high_nibbles);
  }
  const __m512 weight_scales = _mm512_loadu_ps(reinterpret_cast<const float*>(packed + kWeightBytes));
  const size_t blocks = a.k / kInt4BlockSize;
#pragma GCC unroll 4
  for (size_t r = 0; r < kRows; ++r) {
    const size_t at = (row + r) * blocks + block;
    int32_t words[8];  // the row's 32 int8 values, four per word
    std::memcpy(words, a.values.data() + (row + r) * a.k + block * kInt4BlockSize, sizeof(words));
    // Two chains of dot products, so that one waits on the other's latency less. |odd| <= 4 * 4 * 240 * 128.
    __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (size_t g = 0; g < 8; g += 2) {
      even = _mm512_dpbusd_epi32(even, groups[g], _mm512_set1_epi32(words[g]));
      odd = _mm512_dpbusd_epi32(odd, groups[g + 1], _mm512_set1_epi32(words[g + 1]));
    }
    const __m512i dot =
        _mm512_sub_epi32(_mm512_add_epi32(even, _mm512_srai_epi32(odd, 4)), _mm512_set1_epi32(a.zero_point_sums[at]));
    const __m512 scale = _mm512_mul_ps(weight_scales, _mm512_set1_ps(a.scales[at]));
    sums[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), scale, sums[r]);
  }
}

template <size_t kRows>
MODELKIT_AVX512_VNNI void MultiplyTile(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row, size_t tile,
                                       float* c) {
  __m512 sums[kRowGroup];
#pragma GCC unroll 4
  for (__m512& sum : sums) sum = _mm512_setzero_ps();
  for (size_t block = 0; block < b.blocks(); ++block) {
    const uint8_t* packed = b.Block(tile, block);
#pragma GCC unroll 5
    for (size_t line = 0; line < PackedInt4Matrix::kBlockBytes; line += 64) {
      _mm_prefetch(reinterpret_cast<const char*>(packed) + kPrefetchBytes + line, _MM_HINT_T0);
    }
    MultiplyBlock<kRows>(packed, a, row, block, sums);
  }
  const size_t column = tile * kInt4TileColumns;
  const size_t columns = std::min(kInt4TileColumns, b.n() - column);
  const __mmask16 mask = static_cast<__mmask16>((1u << columns) - 1);
#pragma GCC unroll 4
  for (size_t r = 0; r < kRows; ++r) _mm512_mask_storeu_ps(c + (row + r) * b.n() + column, mask, sums[r]);
}

MODELKIT_AVX512_VNNI void QuantizeBlock(const float* values, int8_t* out, float& scale, int32_t& zero_point_sum) {
  const __m512 low = _mm512_loadu_ps(values), high = _mm512_loadu_ps(values + 16);
  const float largest = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(low), _mm512_abs_ps(high)));
  scale = largest / 127.0f;
  const __m512 inverse = _mm512_set1_ps(largest != 0.0f ? 127.0f / largest : 0.0f);
  // Rounds to nearest even (the default MXCSR mode), as ORT does.
  const __m512i low_int = _mm512_cvtps_epi32(_mm512_mul_ps(low, inverse));
  const __m512i high_int = _mm512_cvtps_epi32(_mm512_mul_ps(high, inverse));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtsepi32_epi8(low_int));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm512_cvtsepi32_epi8(high_int));
  zero_point_sum = kZeroPoint * _mm512_reduce_add_epi32(_mm512_add_epi32(low_int, high_int));
}

}  // namespace

bool Int4KernelSupported() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

PackedInt4Matrix::PackedInt4Matrix(const uint8_t* qweight, const float* scales, size_t k, size_t n)
    : k_(k), n_(n), data_(new uint8_t[tiles() * blocks() * kBlockBytes]) {  // no zero fill: every byte is written
  MODELKIT_CHECK(k > 0 && k % kInt4BlockSize == 0 && n > 0);
  const size_t source_block_bytes = kInt4BlockSize / 2;
  for (size_t tile = 0; tile < tiles(); ++tile) {
    for (size_t block = 0; block < blocks(); ++block) {
      uint8_t* packed = data_.get() + (tile * blocks() + block) * kBlockBytes;
      std::memset(packed, kZeroPoint * 0x11, kWeightBytes);  // columns past N: weights equal to the zero point
      float tile_scales[kInt4TileColumns] = {};
      for (size_t column = 0; column < kInt4TileColumns; ++column) {
        const size_t col = tile * kInt4TileColumns + column;
        if (col >= n) break;
        const uint8_t* source = qweight + (col * blocks() + block) * source_block_bytes;
        tile_scales[column] = scales[col * blocks() + block];
        uint8_t elements[kInt4BlockSize];
        for (size_t j = 0; j < source_block_bytes; ++j) {
          elements[2 * j] = source[j] & 0x0F;
          elements[2 * j + 1] = source[j] >> 4;
        }
        for (size_t h = 0; h < 4; ++h) {
          for (size_t i = 0; i < 4; ++i) {
            packed[h * 64 + column * 4 + i] =
                static_cast<uint8_t>(elements[8 * h + i] | (elements[8 * h + 4 + i] << 4));
          }
        }
      }
      std::memcpy(packed + kWeightBytes, tile_scales, sizeof(tile_scales));
    }
  }
}

void QuantizeRows(const float* a, size_t rows, size_t k, QuantizedRows& out) {
  MODELKIT_CHECK(k % kInt4BlockSize == 0);
  const size_t blocks = k / kInt4BlockSize;
  out.rows = rows;
  out.k = k;
  if (out.values.size() < rows * k) out.values.resize(rows * k);
  if (out.scales.size() < rows * blocks) {
    out.scales.resize(rows * blocks);
    out.zero_point_sums.resize(rows * blocks);
  }
  for (size_t i = 0; i < rows * blocks; ++i) {
    QuantizeBlock(a + i * kInt4BlockSize, out.values.data() + i * kInt4BlockSize, out.scales[i],
                  out.zero_point_sums[i]);
  }
}

void MultiplyInt4Tiles(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row_begin, size_t row_end,
                       size_t tile_begin, size_t tile_end, float* c) {
  MODELKIT_CHECK(a.k == b.k() && row_end <= a.rows && tile_end <= b.tiles());
  for (size_t tile = tile_begin; tile < tile_end; ++tile) {
    size_t row = row_begin;
    for (; row + kRowGroup <= row_end; row += kRowGroup) MultiplyTile<kRowGroup>(b, a, row, tile, c);
    switch (row_end - row) {
      case 3:
        MultiplyTile<3>(b, a, row, tile, c);
        break;
      case 2:
        MultiplyTile<2>(b, a, row, tile, c);
        break;
      case 1:
        MultiplyTile<1>(b, a, row, tile, c);
        break;
      default:
        break;
    }
  }
}

}  // namespace modelkit::generate
