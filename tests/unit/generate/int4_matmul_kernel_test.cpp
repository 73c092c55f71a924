// modelkit's int4 kernel against a plain scalar computation of what ORT's MatMulNBits does at accuracy_level 4:
// A quantised to int8 per block of 32, weights (nibble - 8) x scale, dot products summed in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "generate/int4_matmul_kernel.h"

namespace modelkit::generate {
namespace {

struct Problem {
  size_t m, k, n;
  std::vector<float> a;          // [m][k]
  std::vector<uint8_t> qweight;  // [n][k/32][16]
  std::vector<float> scales;     // [n][k/32]
};

Problem MakeProblem(size_t m, size_t k, size_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f), scale(0.001f, 0.05f);
  std::uniform_int_distribution<int> byte(0, 255);
  Problem p{m, k, n, std::vector<float>(m * k), std::vector<uint8_t>(n * k / 2), std::vector<float>(n * k / 32)};
  for (float& x : p.a) x = value(random);
  for (size_t i = 0; i < k; i += 32) p.a[i] = 0.0f;                     // a block partly zero
  std::fill(p.a.begin(), p.a.begin() + std::min<size_t>(32, k), 0.0f);  // and one all zero (scale 0)
  for (uint8_t& b : p.qweight) b = static_cast<uint8_t>(byte(random));
  for (float& s : p.scales) s = scale(random);
  return p;
}

// The scalar quantisation of one block, written from the definition.
void QuantizeBlockReference(const float* a, int8_t* q, float& scale) {
  float largest = 0.0f;
  for (int i = 0; i < 32; ++i) largest = std::max(largest, std::fabs(a[i]));
  scale = largest / 127.0f;
  const float inverse = largest != 0.0f ? 127.0f / largest : 0.0f;
  for (int i = 0; i < 32; ++i) q[i] = static_cast<int8_t>(std::nearbyint(a[i] * inverse));
}

std::vector<double> Reference(const Problem& p) {
  const size_t blocks = p.k / 32;
  std::vector<double> c(p.m * p.n, 0.0);
  for (size_t row = 0; row < p.m; ++row) {
    for (size_t block = 0; block < blocks; ++block) {
      int8_t q[32];
      float a_scale = 0.0f;
      QuantizeBlockReference(&p.a[row * p.k + block * 32], q, a_scale);
      for (size_t col = 0; col < p.n; ++col) {
        const uint8_t* w = &p.qweight[(col * blocks + block) * 16];
        int64_t dot = 0;
        for (int i = 0; i < 32; ++i) {
          const int nibble = i % 2 == 0 ? (w[i / 2] & 0x0F) : (w[i / 2] >> 4);
          dot += static_cast<int64_t>(q[i]) * (nibble - 8);
        }
        c[row * p.n + col] += static_cast<double>(dot) * a_scale * p.scales[col * blocks + block];
      }
    }
  }
  return c;
}

class Int4MatMulKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Int4KernelSupported()) GTEST_SKIP() << "this CPU lacks AVX-512 VNNI";
  }
};

TEST_F(Int4MatMulKernelTest, QuantisesRowsAsTheDefinition) {
  const Problem p = MakeProblem(3, 96, 1, 7);
  QuantizedRows rows;
  QuantizeRows(p.a.data(), p.m, p.k, rows);
  for (size_t block = 0; block < p.m * p.k / 32; ++block) {
    int8_t q[32];
    float scale = 0.0f;
    QuantizeBlockReference(&p.a[block * 32], q, scale);
    EXPECT_EQ(rows.scales[block], scale) << "block " << block;
    int32_t sum = 0;
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(rows.values[block * 32 + i], q[i]) << "block " << block << " element " << i;
      sum += q[i];
    }
    EXPECT_EQ(rows.block_sums[block], rows.scales[block] * static_cast<float>(sum));
  }
}

TEST_F(Int4MatMulKernelTest, MatchesTheScalarDefinitionForEveryRowCountAndPartialTiles) {
  const size_t shapes[][3] = {{1, 32, 1},   {1, 1024, 100}, {3, 96, 17},  {4, 64, 16},
                              {5, 128, 15}, {9, 256, 33},   {70, 64, 40}, {2, 3072, 48}};
  uint32_t seed = 1;
  for (const auto& shape : shapes) {
    const Problem p = MakeProblem(shape[0], shape[1], shape[2], seed++);
    const PackedInt4Matrix packed(p.qweight.data(), p.scales.data(), p.k, p.n);
    QuantizedRows rows;
    QuantizeRows(p.a.data(), p.m, p.k, rows);
    std::vector<float> c(p.m * p.n, std::nanf(""));
    MultiplyInt4Tiles(packed, rows, 0, p.m, 0, packed.tiles(), c.data());
    const std::vector<double> expected = Reference(p);
    double largest = 0.0;
    for (double x : expected) largest = std::max(largest, std::fabs(x));
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_NEAR(c[i], expected[i], 1e-5 * largest + 1e-6)
          << "m=" << p.m << " k=" << p.k << " n=" << p.n << " row " << i / p.n << " column " << i % p.n;
    }
  }
}

TEST_F(Int4MatMulKernelTest, WritesOnlyTheRowsAndTilesAsked) {
  const Problem p = MakeProblem(6, 64, 40, 3);
  const PackedInt4Matrix packed(p.qweight.data(), p.scales.data(), p.k, p.n);
  QuantizedRows rows;
  QuantizeRows(p.a.data(), p.m, p.k, rows);
  std::vector<float> c(p.m * p.n, -1234.0f);
  MultiplyInt4Tiles(packed, rows, 1, 4, 1, 2, c.data());  // rows 1..3, columns 16..31
  const std::vector<double> expected = Reference(p);
  for (size_t row = 0; row < p.m; ++row) {
    for (size_t col = 0; col < p.n; ++col) {
      const float got = c[row * p.n + col];
      if (row >= 1 && row < 4 && col >= 16 && col < 32) {
        EXPECT_NEAR(got, expected[row * p.n + col], 1e-4) << row << "," << col;
      } else {
        EXPECT_EQ(got, -1234.0f) << row << "," << col;
      }
    }
  }
}

// Packing tells its caller of every source byte once, in order, when it will not read it again: the test spoils each
// range as soon as it is told of it, so a packer that read a range again (or was told too early) would compute from
// spoilt weights.
TEST_F(Int4MatMulKernelTest, PackingTellsOfEachSourceBandOnceItIsReadForTheLastTime) {
  Problem p = MakeProblem(2, 64, 2100, 11);  // 132 tiles: three bands of columns, the last one partial
  const std::vector<double> expected = Reference(p);
  struct Range {
    const uint8_t* begin;
    size_t bytes;
  };
  std::vector<Range> told;
  const PackedInt4Matrix packed(p.qweight.data(), p.scales.data(), p.k, p.n, [&](const void* data, size_t bytes) {
    told.push_back({static_cast<const uint8_t*>(data), bytes});
    std::memset(const_cast<void*>(data), 0x5A, bytes);
  });
  // qweight's and scales' ranges alternate, each array's in order, with no gap and no overlap.
  const auto* qweight = p.qweight.data();
  const auto* scales = reinterpret_cast<const uint8_t*>(p.scales.data());
  ASSERT_EQ(told.size() % 2, 0u);
  ASSERT_GE(told.size(), 6u);
  for (size_t i = 0; i < told.size(); i += 2) {
    EXPECT_EQ(told[i].begin, qweight) << "range " << i;
    EXPECT_EQ(told[i + 1].begin, scales) << "range " << i + 1;
    qweight += told[i].bytes;
    scales += told[i + 1].bytes;
  }
  EXPECT_EQ(qweight, p.qweight.data() + p.qweight.size());
  EXPECT_EQ(scales, reinterpret_cast<const uint8_t*>(p.scales.data() + p.scales.size()));

  QuantizedRows rows;
  QuantizeRows(p.a.data(), p.m, p.k, rows);
  std::vector<float> c(p.m * p.n, std::nanf(""));
  MultiplyInt4Tiles(packed, rows, 0, p.m, 0, packed.tiles(), c.data());
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_NEAR(c[i], expected[i], 1e-4) << "row " << i / p.n << " column " << i % p.n;
}

}  // namespace
}  // namespace modelkit::generate
