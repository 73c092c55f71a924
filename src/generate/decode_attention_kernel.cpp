#include "decode_attention_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "modelkit/base/check.h"

// GCC 12's AVX-512 headers make their "undefined" vectors by initialising a variable with itself, which
// -Wuninitialized reports wherever such an intrinsic is inlined (a known false positive, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The kernel functions carry their own target so that the rest of the binary runs on any x86-64; callers check
// DecodeAttentionSupported() first.
#define MODELKIT_AVX512 __attribute__((target("avx2,fma,avx512f,avx512vl")))

namespace modelkit::generate {
namespace {

constexpr size_t kLanes = 16;

// The constants of MLAS's exponential (its polynomial after range reduction by ln 2, split in two parts).
constexpr float kExpLowerRange = -103.9720840454f;  // below this, exp is 0 in float
constexpr float kExpRoundingBias = 12582912.0f;     // 1.5 * 2^23: adding it rounds to an integer
constexpr float kExpLog2Reciprocal = 1.44269504088896341f;
constexpr float kExpLog2High = -6.93145752e-1f;
constexpr float kExpLog2Low = -1.42860677e-6f;
constexpr float kExpPoly0 = 0x1.694000p-10f;
constexpr float kExpPoly1 = 0x1.125edcp-7f;
constexpr float kExpPoly2 = 0x1.555b5ap-5f;
constexpr float kExpPoly3 = 0x1.555450p-3f;
constexpr float kExpPoly4 = 0x1.fffff6p-2f;
constexpr float kExpPoly56 = 0x1.000000p+0f;

MODELKIT_AVX512 inline __mmask16 FirstLanes(size_t count) {
  return static_cast<__mmask16>(count >= kLanes ? 0xFFFFu : (1u << count) - 1);
}

// out = x rotated by the cos/sin row (H/2 values each), half-split, as MLAS's rotary kernel does it.
MODELKIT_AVX512 void Rotate(const float* x, const float* cos, const float* sin, size_t head_size, float* out) {
  const size_t half = head_size / 2;
  for (size_t i = 0; i < half; i += kLanes) {
    const __mmask16 lanes = FirstLanes(half - i);
    const __m512 real = _mm512_maskz_loadu_ps(lanes, x + i), imag = _mm512_maskz_loadu_ps(lanes, x + half + i);
    const __m512 c = _mm512_maskz_loadu_ps(lanes, cos + i), s = _mm512_maskz_loadu_ps(lanes, sin + i);
    const __m512 real_out = _mm512_fmsub_ps(real, c, _mm512_mul_ps(imag, s));
    const __m512 imag_out = _mm512_fmadd_ps(real, s, _mm512_mul_ps(imag, c));
    _mm512_mask_storeu_ps(out + i, lanes, real_out);
    _mm512_mask_storeu_ps(out + half + i, lanes, imag_out);
  }
}

// Query heads that go through a KV head's cache together (each key and value row is loaded once for them).
constexpr size_t kHeadsTogether = 2;
// Positions scored together: their running sums reduce together, pair by pair.
constexpr size_t kPositionsTogether = 8;

// scores[h][j] = dot(q[h], keys[j]) * scale for j < positions and kHeads heads, each dot product as ORT's decode
// attention sums it: eight running sums, sum l over elements l, l + 8, l + 16, ... in order (each product rounded,
// then added), reduced as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)). The running sums of 8 positions and
// kHeads heads advance side by side, so that their additions do not wait on each other.
template <size_t kHeads>
MODELKIT_AVX512 void Scores(const float* const* q, const float* keys, size_t positions, size_t head_size, float scale,
                            float* const* scores) {
  const __m256 scale_vector = _mm256_set1_ps(scale);
  for (size_t first = 0; first < positions; first += kPositionsTogether) {
    const size_t count = std::min(kPositionsTogether, positions - first);
    __m256 sums[kHeads][kPositionsTogether];
#pragma GCC unroll 2
    for (size_t h = 0; h < kHeads; ++h) {
#pragma GCC unroll 8
      for (size_t i = 0; i < kPositionsTogether; ++i) sums[h][i] = _mm256_setzero_ps();
    }
    const float* rows = keys + first * head_size;
    if (count == kPositionsTogether) {
      // One row after another, so that the cache reads the keys as one forward stream; the rows' sums are
      // independent, so the core overlaps one row's additions with the next row's.
#pragma GCC unroll 8
      for (size_t i = 0; i < kPositionsTogether; ++i) {
        const float* row = rows + i * head_size;
        for (size_t d = 0; d < head_size; d += 8) {
          const __m256 key = _mm256_loadu_ps(row + d);
#pragma GCC unroll 2
          for (size_t h = 0; h < kHeads; ++h) {
            sums[h][i] = _mm256_add_ps(sums[h][i], _mm256_mul_ps(_mm256_loadu_ps(q[h] + d), key));
          }
        }
      }
      for (size_t h = 0; h < kHeads; ++h) {
        // hadd adds adjacent lanes: after two rounds each 128-bit half holds (s0 + s1) + (s2 + s3) of four positions
        // (low half) and (s4 + s5) + (s6 + s7) (high half).
        const __m256* x = sums[h];
        const __m256 quads0123 = _mm256_hadd_ps(_mm256_hadd_ps(x[0], x[1]), _mm256_hadd_ps(x[2], x[3]));
        const __m256 quads4567 = _mm256_hadd_ps(_mm256_hadd_ps(x[4], x[5]), _mm256_hadd_ps(x[6], x[7]));
        const __m256 low = _mm256_permute2f128_ps(quads0123, quads4567, 0x20);
        const __m256 high = _mm256_permute2f128_ps(quads0123, quads4567, 0x31);
        _mm256_storeu_ps(scores[h] + first, _mm256_mul_ps(_mm256_add_ps(low, high), scale_vector));
      }
      continue;
    }
    for (size_t d = 0; d < head_size; d += 8) {
      for (size_t i = 0; i < count; ++i) {
        const __m256 key = _mm256_loadu_ps(rows + i * head_size + d);
        for (size_t h = 0; h < kHeads; ++h) {
          sums[h][i] = _mm256_add_ps(sums[h][i], _mm256_mul_ps(_mm256_loadu_ps(q[h] + d), key));
        }
      }
    }
    for (size_t h = 0; h < kHeads; ++h) {
      for (size_t i = 0; i < count; ++i) {
        alignas(32) float s[8];
        _mm256_store_ps(s, sums[h][i]);
        scores[h][first + i] = (((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))) * scale;
      }
    }
  }
}

// MLAS's exponential of (x + negative_maximum), for the lanes of x.
MODELKIT_AVX512 inline __m512 ShiftedExp(__m512 x, __m512 negative_maximum) {
  __m512 v = _mm512_max_ps(_mm512_set1_ps(kExpLowerRange), _mm512_add_ps(negative_maximum, x));
  const __m512 bias = _mm512_set1_ps(kExpRoundingBias);
  const __m512 m = _mm512_sub_ps(_mm512_fmadd_ps(_mm512_set1_ps(kExpLog2Reciprocal), v, bias), bias);
  v = _mm512_fmadd_ps(m, _mm512_set1_ps(kExpLog2High), v);
  v = _mm512_fmadd_ps(m, _mm512_set1_ps(kExpLog2Low), v);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly0), v, _mm512_set1_ps(kExpPoly1));
  p = _mm512_fmadd_ps(p, v, _mm512_set1_ps(kExpPoly2));
  p = _mm512_fmadd_ps(p, v, _mm512_set1_ps(kExpPoly3));
  p = _mm512_fmadd_ps(p, v, _mm512_set1_ps(kExpPoly4));
  p = _mm512_fmadd_ps(p, v, _mm512_set1_ps(kExpPoly56));
  p = _mm512_fmadd_ps(p, v, _mm512_set1_ps(kExpPoly56));
  return _mm512_scalef_ps(p, m);
}

// scores[0..n) replaced by exp(score - maximum) as MLAS computes it; returns their sum, added as MLAS adds them.
MODELKIT_AVX512 float ExponentiateScores(float* scores, size_t n) {
  __m512 maxima = _mm512_set1_ps(-__builtin_huge_valf());
  for (size_t j = 0; j < n; j += kLanes) {
    const __mmask16 lanes = FirstLanes(n - j);
    maxima = _mm512_mask_max_ps(maxima, lanes, maxima, _mm512_maskz_loadu_ps(lanes, scores + j));
  }
  const __m512 negative_maximum = _mm512_set1_ps(-_mm512_reduce_max_ps(maxima));
  __m512 sums = _mm512_setzero_ps();
  for (size_t j = 0; j < n; j += kLanes) {
    const __mmask16 lanes = FirstLanes(n - j);
    const __m512 e = ShiftedExp(_mm512_maskz_loadu_ps(lanes, scores + j), negative_maximum);
    sums = _mm512_mask_add_ps(sums, lanes, sums, e);
    _mm512_mask_storeu_ps(scores + j, lanes, e);
  }
  // The lanes reduced as MLAS reduces them: the two halves added lane by lane, then pairs, then pairs of pairs, and
  // the two quads last.
  alignas(64) float lane[kLanes];
  _mm512_store_ps(lane, sums);
  float half[8];
  for (size_t i = 0; i < 8; ++i) half[i] = lane[8 + i] + lane[i];
  const float low = (half[0] + half[1]) + (half[2] + half[3]);
  const float high = (half[4] + half[5]) + (half[6] + half[7]);
  return low + high;
}

// out[h][0..H) = (sum over j < n of weights[h][j] * values[j]) * (1 / weight_sums[h]) for kHeads heads and H =
// 16 kSlices, as ORT's decode attention computes it: the sum from zero, one position after another (each product
// rounded, then added), scaled once at the end. The sums of all the head's slices of 16 values advance side by side,
// in registers.
template <size_t kHeads, size_t kSlices>
MODELKIT_AVX512 void WeightedValues(const float* const* weights, const float* weight_sums, const float* values,
                                    size_t n, float* const* out) {
  __m512 sums[kHeads][kSlices];
#pragma GCC unroll 2
  for (size_t h = 0; h < kHeads; ++h) {
#pragma GCC unroll 8
    for (size_t v = 0; v < kSlices; ++v) sums[h][v] = _mm512_setzero_ps();
  }
  for (size_t j = 0; j < n; ++j) {
    const float* row = values + j * kSlices * kLanes;
    __m512 weight[kHeads];
#pragma GCC unroll 2
    for (size_t h = 0; h < kHeads; ++h) weight[h] = _mm512_set1_ps(weights[h][j]);
#pragma GCC unroll 8
    for (size_t v = 0; v < kSlices; ++v) {
      const __m512 value = _mm512_loadu_ps(row + v * kLanes);
#pragma GCC unroll 2
      for (size_t h = 0; h < kHeads; ++h) sums[h][v] = _mm512_add_ps(sums[h][v], _mm512_mul_ps(weight[h], value));
    }
  }
#pragma GCC unroll 2
  for (size_t h = 0; h < kHeads; ++h) {
    const __m512 reciprocal = _mm512_set1_ps(weight_sums[h] > 0.0f ? 1.0f / weight_sums[h] : 0.0f);
#pragma GCC unroll 8
    for (size_t v = 0; v < kSlices; ++v) {
      _mm512_storeu_ps(out[h] + v * kLanes, _mm512_mul_ps(sums[h][v], reciprocal));
    }
  }
}

// WeightedValues for a head of any size the kernel takes (a multiple of 16, at most kDecodeAttentionMaxHeadSize).
template <size_t kHeads, size_t... kSliceCounts>
MODELKIT_AVX512 void WeightedValuesOfHeadSize(const float* const* weights, const float* weight_sums,
                                              const float* values, size_t n, size_t head_size, float* const* out,
                                              std::index_sequence<kSliceCounts...>) {
  using Variant = void (*)(const float* const*, const float*, const float*, size_t, float* const*);
  static constexpr Variant kBySlices[] = {&WeightedValues<kHeads, kSliceCounts + 1>...};
  kBySlices[head_size / kLanes - 1](weights, weight_sums, values, n, out);
}

// Heads [g, g + kHeads) of a KV head's group: scores, exponentials, output.
template <size_t kHeads>
MODELKIT_AVX512 void AttendHeads(const float* queries, float* scores, size_t scores_stride, const float* keys,
                                 const float* values, size_t positions, size_t head_size, float scale, float* output) {
  const float* q[kHeads];
  float* weights[kHeads];
  float* out[kHeads];
  float weight_sums[kHeads];
  for (size_t h = 0; h < kHeads; ++h) {
    q[h] = queries + h * head_size;
    weights[h] = scores + h * scores_stride;
    out[h] = output + h * head_size;
  }
  Scores<kHeads>(q, keys, positions, head_size, scale, weights);
  for (size_t h = 0; h < kHeads; ++h) weight_sums[h] = ExponentiateScores(weights[h], positions);
  WeightedValuesOfHeadSize<kHeads>(weights, weight_sums, values, positions, head_size, out,
                                   std::make_index_sequence<kDecodeAttentionMaxHeadSize / kLanes>());
}

// Scratch of the calling thread: the rotated queries and the scores of the heads of one KV head. It only grows.
std::vector<float>& ThreadScratch() {
  thread_local std::vector<float> scratch;
  return scratch;
}

}  // namespace

bool DecodeAttentionSupported() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"); }

bool DecodeAttentionShapeSupported(const DecodeAttentionShape& shape) {
  return shape.num_heads > 0 && shape.kv_num_heads > 0 && shape.num_heads % shape.kv_num_heads == 0 &&
         shape.head_size > 0 && shape.head_size % kLanes == 0 && shape.head_size <= kDecodeAttentionMaxHeadSize &&
         shape.cache_length > 0;
}

MODELKIT_AVX512 void RunDecodeAttentionHead(const DecodeAttentionShape& shape, const DecodeAttentionStep& step,
                                            size_t kv_head) {
  MODELKIT_CHECK(DecodeAttentionShapeSupported(shape) && step.position < shape.cache_length &&
                 kv_head < shape.kv_num_heads);
  const size_t h_size = shape.head_size, group = shape.num_heads / shape.kv_num_heads;
  const size_t positions = step.position + 1;
  float* const keys = step.key_cache + kv_head * shape.cache_length * h_size;
  float* const values = step.value_cache + kv_head * shape.cache_length * h_size;
  const float* key = step.key + kv_head * h_size;
  if (shape.rotary) {
    Rotate(key, step.cos, step.sin, h_size, keys + step.position * h_size);
  } else {
    std::memcpy(keys + step.position * h_size, key, h_size * sizeof(float));
  }
  std::memcpy(values + step.position * h_size, step.value + kv_head * h_size, h_size * sizeof(float));

  std::vector<float>& scratch = ThreadScratch();
  const size_t scores_stride = (positions + kLanes - 1) / kLanes * kLanes;
  if (scratch.size() < group * (h_size + scores_stride)) scratch.resize(group * (h_size + scores_stride));
  float* const queries = scratch.data();
  float* const scores = queries + group * h_size;
  for (size_t g = 0; g < group; ++g) {
    const float* query = step.query + (kv_head * group + g) * h_size;
    if (shape.rotary) {
      Rotate(query, step.cos, step.sin, h_size, queries + g * h_size);
    } else {
      std::memcpy(queries + g * h_size, query, h_size * sizeof(float));
    }
  }
  float* const output = step.output + kv_head * group * h_size;
  size_t g = 0;
  for (; g + kHeadsTogether <= group; g += kHeadsTogether) {
    AttendHeads<kHeadsTogether>(queries + g * h_size, scores + g * scores_stride, scores_stride, keys, values,
                                positions, h_size, shape.scale, output + g * h_size);
  }
  if (g < group) {
    AttendHeads<1>(queries + g * h_size, scores + g * scores_stride, scores_stride, keys, values, positions, h_size,
                   shape.scale, output + g * h_size);
  }
}

}  // namespace modelkit::generate
