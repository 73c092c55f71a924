// modelkit's fp32 kernel against a scalar computation in the order the kernel promises (ORT's MatMul with a constant
// B): per output, runs of 256 along K, each an in-order chain of fused multiply-adds from zero, added in order.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "generate/fp32_matmul_kernel.h"

namespace modelkit::generate {
namespace {

struct Problem {
  size_t m, k, n;
  std::vector<float> a;  // [m][k]
  std::vector<float> b;  // [k][n]
};

Problem MakeProblem(size_t m, size_t k, size_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Problem p{m, k, n, std::vector<float>(m * k), std::vector<float>(k * n)};
  for (float& x : p.a) x = value(random);
  for (float& x : p.b) x = value(random);
  return p;
}

std::vector<float> Reference(const Problem& p) {
  std::vector<float> c(p.m * p.n);
  for (size_t row = 0; row < p.m; ++row) {
    for (size_t col = 0; col < p.n; ++col) {
      float total = 0.0f;
      for (size_t run = 0; run < p.k; run += kFp32SumRun) {
        float sum = 0.0f;
        for (size_t k = run; k < std::min(p.k, run + kFp32SumRun); ++k) {
          sum = std::fma(p.a[row * p.k + k], p.b[k * p.n + col], sum);
        }
        total += sum;
      }
      c[row * p.n + col] = total;
    }
  }
  return c;
}

class Fp32MatMulKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Fp32KernelSupported()) GTEST_SKIP() << "this CPU lacks AVX-512";
  }
};

TEST_F(Fp32MatMulKernelTest, SumsInThePromisedOrderForEveryRowCountAndPartialTiles) {
  const size_t shapes[][3] = {{1, 1, 1}, {1, 300, 40}, {3, 256, 17}, {8, 513, 33}, {9, 64, 16}};
  uint32_t seed = 1;
  for (const auto& shape : shapes) {
    const Problem p = MakeProblem(shape[0], shape[1], shape[2], seed++);
    const PackedFp32Matrix packed(p.b.data(), p.k, p.n);
    std::vector<float> c(p.m * p.n, std::nanf(""));
    MultiplyFp32Tiles(packed, p.a.data(), 0, p.m, 0, packed.tiles(), c.data());
    const std::vector<float> expected = Reference(p);
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_EQ(c[i], expected[i]) << "m=" << p.m << " k=" << p.k << " n=" << p.n << " row " << i / p.n << " column "
                                   << i % p.n;
    }
  }
}

// Packing tells its caller of every row of B once, in order, when it will not read it again: the test spoils each
// range as soon as it is told of it, so a packer that read a range again (or was told too early) would compute from
// spoilt weights.
TEST_F(Fp32MatMulKernelTest, PackingTellsOfEachBandOfRowsOnceItIsReadForTheLastTime) {
  Problem p = MakeProblem(2, 300, 40, 5);  // bands of rows, the last one partial
  const std::vector<float> expected = Reference(p);
  const uint8_t* next = reinterpret_cast<const uint8_t*>(p.b.data());
  size_t ranges = 0;
  const PackedFp32Matrix packed(p.b.data(), p.k, p.n, [&](const void* data, size_t bytes) {
    EXPECT_EQ(data, next) << "range " << ranges;
    next = static_cast<const uint8_t*>(data) + bytes;
    ++ranges;
    std::memset(const_cast<void*>(data), 0x7F, bytes);
  });
  EXPECT_EQ(next, reinterpret_cast<const uint8_t*>(p.b.data() + p.b.size()));
  EXPECT_GE(ranges, 3u);
  std::vector<float> c(p.m * p.n, std::nanf(""));
  MultiplyFp32Tiles(packed, p.a.data(), 0, p.m, 0, packed.tiles(), c.data());
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], expected[i]) << "row " << i / p.n << " column " << i % p.n;
}

}  // namespace
}  // namespace modelkit::generate
