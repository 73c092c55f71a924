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
// Blocks whose partial sums share one set of accumulators (ORT's kernel takes 4 blocks, 128 bytes of A, at a time).
constexpr size_t kBlocksPerGroup = 4;
// Rows of a prompt that share one unpacking of a block's weights.
constexpr size_t kRowGroup = 4;
// Tiles packed per band. A tile's source columns are read once, in order, so each band's can be given back before
// the next band: the source of a 151669-column lm_head (92.6 MiB with its scales) is then at most 640 KB resident
// at a time for K = 1024, not all of it.
constexpr size_t kPackBandTiles = 64;

// ORT's summation order, which this kernel reproduces so that its results equal ORT's bit for bit. For one output
// column ORT keeps 16 fp32 partial sums ("lanes"). For each group of 4 blocks, each lane adds one product
// float(d) * (scale_a * scale_b), where d is the exact integer dot product of 8 of a block's 32 elements with the
// weights as stored (0..15, zero point not subtracted): element quads {q, q + 2} of the block, quad q = elements
// 4q..4q+3. Block j of the group and quad pair p = 0..3 (quads {0,2}, {1,3}, {4,6}, {5,7}) go to lane
// 4 * c + l with c = 2 * (j % 2) + p / 2 and l = 2 * (j / 2) + p % 2. After the groups, lanes i and i + 8 are added
// (8 lanes); each block left over (blocks % 4) adds quad i's product to lane i. The 8 lanes are summed as
// ((x0 + x1) + x2) + x3 + ((x4 + x5) + x6) + x7, for the columns of whole groups of 4 columns, or as
// ((x0 + x4) + (x2 + x6)) + ((x1 + x5) + (x3 + x7)) for the last N % 4. Last, the zero point's share is added: a
// separate fp32 sum over the blocks in order of block_sum_a * (-8 * scale_b), block_sum_a = scale_a * sum(a).
constexpr size_t Lane(size_t block_in_group, size_t pair) {
  return 4 * (2 * (block_in_group % 2) + pair / 2) + 2 * (block_in_group / 2) + pair % 2;
}

// The weights of one packed block for 16 columns: quad 2h in the low nibbles of bytes [64h, 64h + 64) and quad 2h + 1
// in their high nibbles. LoadBlock leaves the high nibbles in place, 16 times their value, and the dot products that
// use them are shifted back by 4 (exact: every term is a multiple of 16); LoadBlockShifted moves them down.
struct BlockWeights {
  __m512i low[4], high[4];
};

MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) BlockWeights LoadBlock(const uint8_t* packed) {
  const __m512i low_nibbles = _mm512_set1_epi8(0x0F), high_nibbles = _mm512_set1_epi8(static_cast<char>(0xF0));
  BlockWeights weights;
#pragma GCC unroll 4
  for (size_t h = 0; h < 4; ++h) {
    const __m512i bytes = _mm512_loadu_si512(packed + h * 64);
    weights.low[h] = _mm512_and_si512(bytes, low_nibbles);
    weights.high[h] = _mm512_and_si512(bytes, high_nibbles);
  }
  return weights;
}

// LoadBlock's weights for several rows (a prompt): the high nibbles moved down, so that their dot products need no
// shift back. Two more operations per block than LoadBlock, two fewer per row and block (the shifts of PairDots).
MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) BlockWeights LoadBlockShifted(const uint8_t* packed) {
  const __m512i low_nibbles = _mm512_set1_epi8(0x0F);
  BlockWeights weights;
#pragma GCC unroll 4
  for (size_t h = 0; h < 4; ++h) {
    const __m512i bytes = _mm512_loadu_si512(packed + h * 64);
    weights.low[h] = _mm512_and_si512(bytes, low_nibbles);
    weights.high[h] = _mm512_and_si512(_mm512_srli_epi16(bytes, 4), low_nibbles);
  }
  return weights;
}

// The 16 columns' dot products of one quad (the 4 int8 values of A at `quad`) with the weights of that quad. The
// quad is broadcast straight from memory (a load, not an ALU operation).
MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) __m512i QuadDot(__m512i sum, __m512i weights,
                                                                           const int8_t* quad) {
  return _mm512_dpbusd_epi32(sum, weights, _mm512_broadcastd_epi32(_mm_loadu_si32(quad)));
}

// The 16 columns' exact integer dot products of one block of one row with the weights, as ORT pairs the block's
// quads (see Lane): pair p = quads {0,2}, {1,3}, {4,6}, {5,7}. kHighInPlace: the weights are LoadBlock's (high
// nibbles 16 times their value, shifted back here); otherwise LoadBlockShifted's.
template <bool kHighInPlace>
MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) void PairDots(const BlockWeights& w, const int8_t* quads,
                                                                         __m512i (&pairs)[4]) {
  const __m512i zero = _mm512_setzero_si512();
  pairs[0] = QuadDot(QuadDot(zero, w.low[0], quads), w.low[1], quads + 8);
  pairs[1] = QuadDot(QuadDot(zero, w.high[0], quads + 4), w.high[1], quads + 12);
  pairs[2] = QuadDot(QuadDot(zero, w.low[2], quads + 16), w.low[3], quads + 24);
  pairs[3] = QuadDot(QuadDot(zero, w.high[2], quads + 20), w.high[3], quads + 28);
  if constexpr (kHighInPlace) {
    pairs[1] = _mm512_srai_epi32(pairs[1], 4);
    pairs[3] = _mm512_srai_epi32(pairs[3], 4);
  }
}

MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) __m512 WeightScales(const uint8_t* packed) {
  return _mm512_loadu_ps(reinterpret_cast<const float*>(packed + kWeightBytes));
}

// `share` plus one block's share of the zero point 8 (ORT's separate sum, taken in block order):
// block_sum_a * (-8 * scale_b).
MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) __m512 AddZeroPointShare(__m512 share, __m512 weight_scales,
                                                                                    float block_sum) {
  const __m512 minus_zero_point = _mm512_set1_ps(-static_cast<float>(kZeroPoint));
  return _mm512_fmadd_ps(_mm512_set1_ps(block_sum), _mm512_mul_ps(weight_scales, minus_zero_point), share);
}

MODELKIT_AVX512_VNNI inline __attribute__((always_inline)) void Prefetch(const uint8_t* packed) {
#pragma GCC unroll 5
  for (size_t line = 0; line < PackedInt4Matrix::kBlockBytes; line += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(packed) + kPrefetchBytes + line, _MM_HINT_T0);
  }
}

// Completes one row of one tile from its 16 lanes after the groups of 4 blocks: adds lanes i + 8 into lanes i, the
// blocks left over, sums the 8 lanes as ORT does for each column, adds `zero_point_share` and stores the row.
MODELKIT_AVX512_VNNI void FinishRow(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row, size_t tile,
                                    __m512 (&lanes)[16], __m512 zero_point_share, float* c) {
  const size_t blocks = b.blocks();
#pragma GCC unroll 8
  for (size_t i = 0; i < 8; ++i) lanes[i] = _mm512_add_ps(lanes[i], lanes[i + 8]);
  for (size_t block = blocks - blocks % kBlocksPerGroup; block < blocks; ++block) {
    const uint8_t* packed = b.Block(tile, block);
    const BlockWeights w = LoadBlock(packed);
    const int8_t* quads = a.values.data() + row * a.k + block * kInt4BlockSize;
    const __m512 scale = _mm512_mul_ps(WeightScales(packed), _mm512_set1_ps(a.scales[row * blocks + block]));
#pragma GCC unroll 4
    for (size_t h = 0; h < 4; ++h) {
      const __m512i low = QuadDot(_mm512_setzero_si512(), w.low[h], quads + 8 * h);
      const __m512i high = _mm512_srai_epi32(QuadDot(_mm512_setzero_si512(), w.high[h], quads + 8 * h + 4), 4);
      lanes[2 * h] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(low), scale, lanes[2 * h]);
      lanes[2 * h + 1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(high), scale, lanes[2 * h + 1]);
    }
  }
  const size_t column = tile * kInt4TileColumns;
  const size_t columns = std::min(kInt4TileColumns, b.n() - column);
  const __m512 in_order =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(lanes[0], lanes[1]), lanes[2]), lanes[3]),
                    _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(lanes[4], lanes[5]), lanes[6]), lanes[7]));
  const __m512 as_tree =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(lanes[0], lanes[4]), _mm512_add_ps(lanes[2], lanes[6])),
                    _mm512_add_ps(_mm512_add_ps(lanes[1], lanes[5]), _mm512_add_ps(lanes[3], lanes[7])));
  // Columns at or past the matrix's last whole group of 4 columns take the tree.
  const size_t whole_groups_end = b.n() - b.n() % 4;
  const size_t in_order_columns = whole_groups_end > column ? std::min(kInt4TileColumns, whole_groups_end - column) : 0;
  const __m512 folded = _mm512_mask_blend_ps(static_cast<__mmask16>((1u << in_order_columns) - 1), as_tree, in_order);
  _mm512_mask_storeu_ps(c + row * b.n() + column, static_cast<__mmask16>((1u << columns) - 1),
                        _mm512_add_ps(folded, zero_point_share));
}

// One row times one tile (a decode step): all 16 lanes stay in registers and the tile streams once, in order.
MODELKIT_AVX512_VNNI void MultiplyTileRow(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row, size_t tile,
                                          float* c) {
  const size_t blocks = b.blocks();
  const int8_t* values = a.values.data() + row * a.k;
  const float* row_scales = a.scales.data() + row * blocks;
  const float* row_block_sums = a.block_sums.data() + row * blocks;
  __m512 lanes[16];
#pragma GCC unroll 16
  for (__m512& lane : lanes) lane = _mm512_setzero_ps();
  __m512 zero_point_share = _mm512_setzero_ps();
  const size_t grouped = blocks - blocks % kBlocksPerGroup;
  for (size_t group = 0; group < grouped; group += kBlocksPerGroup) {
#pragma GCC unroll 4
    for (size_t j = 0; j < kBlocksPerGroup; ++j) {
      const size_t block = group + j;
      const uint8_t* packed = b.Block(tile, block);
      Prefetch(packed);
      __m512i pairs[4];
      PairDots</*kHighInPlace=*/true>(LoadBlock(packed), values + block * kInt4BlockSize, pairs);
      const __m512 weight_scales = WeightScales(packed);
      zero_point_share = AddZeroPointShare(zero_point_share, weight_scales, row_block_sums[block]);
      const __m512 scale = _mm512_mul_ps(weight_scales, _mm512_set1_ps(row_scales[block]));
#pragma GCC unroll 4
      for (size_t pair = 0; pair < 4; ++pair) {
        lanes[Lane(j, pair)] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(pairs[pair]), scale, lanes[Lane(j, pair)]);
      }
    }
  }
  for (size_t block = grouped; block < blocks; ++block) {
    zero_point_share = AddZeroPointShare(zero_point_share, WeightScales(b.Block(tile, block)), row_block_sums[block]);
  }
  FinishRow(b, a, row, tile, lanes, zero_point_share, c);
}

// kRows rows (a prompt) times one tile. Each block of a group feeds its own 4 lanes, so the 4 lane sets are summed
// in 4 passes over the tile (blocks j, j + 4, ... for set j), each holding 4 lanes per row in registers while one
// unpacking of a block serves every row. The tile (10 KiB per 1024 of K) stays in cache between passes.
template <size_t kRows>
MODELKIT_AVX512_VNNI void MultiplyTileRows(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row, size_t tile,
                                           float* c) {
  const size_t blocks = b.blocks(), grouped = blocks - blocks % kBlocksPerGroup;
  __m512 lanes[kRows][16];
#pragma GCC unroll 4
  for (size_t j = 0; j < kBlocksPerGroup; ++j) {
    __m512 sums[kRows][4];
#pragma GCC unroll 4
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (__m512& sum : sums[r]) sum = _mm512_setzero_ps();
    }
    for (size_t block = j; block < grouped; block += kBlocksPerGroup) {
      const uint8_t* packed = b.Block(tile, block);
      const BlockWeights w = LoadBlockShifted(packed);
      const __m512 weight_scales = WeightScales(packed);
#pragma GCC unroll 4
      for (size_t r = 0; r < kRows; ++r) {
        __m512i pairs[4];
        PairDots</*kHighInPlace=*/false>(w, a.values.data() + (row + r) * a.k + block * kInt4BlockSize, pairs);
        const __m512 scale = _mm512_mul_ps(weight_scales, _mm512_set1_ps(a.scales[(row + r) * blocks + block]));
#pragma GCC unroll 4
        for (size_t pair = 0; pair < 4; ++pair) {
          sums[r][pair] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(pairs[pair]), scale, sums[r][pair]);
        }
      }
    }
#pragma GCC unroll 4
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (size_t pair = 0; pair < 4; ++pair) lanes[r][Lane(j, pair)] = sums[r][pair];
    }
  }
  __m512 zero_point_share[kRows];
#pragma GCC unroll 4
  for (__m512& share : zero_point_share) share = _mm512_setzero_ps();
  for (size_t block = 0; block < blocks; ++block) {
    const __m512 weight_scales = WeightScales(b.Block(tile, block));
#pragma GCC unroll 4
    for (size_t r = 0; r < kRows; ++r) {
      zero_point_share[r] =
          AddZeroPointShare(zero_point_share[r], weight_scales, a.block_sums[(row + r) * blocks + block]);
    }
  }
  for (size_t r = 0; r < kRows; ++r) FinishRow(b, a, row + r, tile, lanes[r], zero_point_share[r], c);
}

MODELKIT_AVX512_VNNI void QuantizeBlock(const float* values, int8_t* out, float& scale, float& block_sum) {
  const __m512 low = _mm512_loadu_ps(values), high = _mm512_loadu_ps(values + 16);
  const float largest = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(low), _mm512_abs_ps(high)));
  scale = largest / 127.0f;
  const __m512 inverse = _mm512_set1_ps(largest != 0.0f ? 127.0f / largest : 0.0f);
  // Rounds to nearest even (the default MXCSR mode), as ORT does.
  const __m512i low_int = _mm512_cvtps_epi32(_mm512_mul_ps(low, inverse));
  const __m512i high_int = _mm512_cvtps_epi32(_mm512_mul_ps(high, inverse));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtsepi32_epi8(low_int));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm512_cvtsepi32_epi8(high_int));
  block_sum = scale * static_cast<float>(_mm512_reduce_add_epi32(_mm512_add_epi32(low_int, high_int)));
}

// Tells `columns_packed` of columns [column_begin, column_end) of MatMulNBits' qweight and then of its scales.
void ReportColumnsPacked(const uint8_t* qweight, const float* scales, size_t blocks, size_t column_begin,
                         size_t column_end, const std::function<void(const void* data, size_t bytes)>& columns_packed) {
  const size_t qweight_bytes_per_column = blocks * kInt4BlockSize / 2;
  columns_packed(qweight + column_begin * qweight_bytes_per_column,
                 (column_end - column_begin) * qweight_bytes_per_column);
  columns_packed(scales + column_begin * blocks, (column_end - column_begin) * blocks * sizeof(float));
}

}  // namespace

bool Int4KernelSupported() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

PackedInt4Matrix::PackedInt4Matrix(const uint8_t* qweight, const float* scales, size_t k, size_t n,
                                   const std::function<void(const void* data, size_t bytes)>& columns_packed)
    : k_(k), n_(n), data_(new uint8_t[tiles() * blocks() * kBlockBytes]) {  // no zero fill: every byte is written
  MODELKIT_CHECK(k > 0 && k % kInt4BlockSize == 0 && n > 0);
  const size_t source_block_bytes = kInt4BlockSize / 2;
  for (size_t tile = 0; tile < tiles(); ++tile) {
    if (columns_packed && tile > 0 && tile % kPackBandTiles == 0) {
      ReportColumnsPacked(qweight, scales, blocks(), (tile - kPackBandTiles) * kInt4TileColumns,
                          tile * kInt4TileColumns, columns_packed);
    }
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
  if (columns_packed) {
    const size_t last_band = (tiles() - 1) / kPackBandTiles * kPackBandTiles;
    ReportColumnsPacked(qweight, scales, blocks(), last_band * kInt4TileColumns, n, columns_packed);
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
    out.block_sums.resize(rows * blocks);
  }
  for (size_t i = 0; i < rows * blocks; ++i) {
    QuantizeBlock(a + i * kInt4BlockSize, out.values.data() + i * kInt4BlockSize, out.scales[i], out.block_sums[i]);
  }
}

void MultiplyInt4Tiles(const PackedInt4Matrix& b, const QuantizedRows& a, size_t row_begin, size_t row_end,
                       size_t tile_begin, size_t tile_end, float* c) {
  MODELKIT_CHECK(a.k == b.k() && row_end <= a.rows && tile_end <= b.tiles());
  // Rows inside tiles: a tile's weights stay in cache for the rows after the first.
  for (size_t tile = tile_begin; tile < tile_end; ++tile) {
    size_t row = row_begin;
    for (; row + kRowGroup <= row_end; row += kRowGroup) MultiplyTileRows<kRowGroup>(b, a, row, tile, c);
    switch (row_end - row) {
      case 3:
        MultiplyTileRows<3>(b, a, row, tile, c);
        break;
      case 2:
        MultiplyTileRows<2>(b, a, row, tile, c);
        break;
      case 1:
        MultiplyTileRow(b, a, row, tile, c);
        break;
      default:
        break;
    }
  }
}

}  // namespace modelkit::generate
