// MatMulNBits packing: layout, padding of the last block, and the quantisation error bound.
#include "builder/int4.h"

#include <gtest/gtest.h>

#include <cmath>

namespace modelkit::builder {
namespace {

TEST(Int4Test, SymmetricPacksLowNibbleFirstAroundEight) {
  std::vector<float> w(16, 0.0f);
  w[0] = -8.0f;  // the extreme value maps to -8: scale 1
  w[1] = 7.0f;
  w[2] = 1.0f;
  const Int4Weight q = QuantizeInt4(w, 1, 16, 16, /*symmetric=*/true);
  ASSERT_EQ(q.blocks_per_row, 1);
  ASSERT_EQ(q.packed.size(), 8u);
  EXPECT_FLOAT_EQ(q.scales[0], 1.0f);
  EXPECT_EQ(q.packed[0], 0x0F << 4 | 0x00);  // q0 = 0 (-8 + 8) low, q1 = 15 (7 + 8) high
  EXPECT_EQ(q.packed[1], 0x8 << 4 | 0x9);    // q2 = 9 low, q3 = 8 high
  EXPECT_TRUE(q.zero_points.empty());
}

TEST(Int4Test, PadsTheLastBlockAndPacksZeroPointsPerRow) {
  std::vector<float> w(3 * 40);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(static_cast<float>(i)) + 0.5f;
  const Int4Weight q = QuantizeInt4(w, 3, 40, 32, /*symmetric=*/false);
  EXPECT_EQ(q.blocks_per_row, 2);
  EXPECT_EQ(q.packed.size(), 3u * 2 * 16);
  EXPECT_EQ(q.scales.size(), 6u);
  EXPECT_EQ(q.zero_points.size(), 3u);  // two 4-bit zero points per row fit one byte
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t c = 0; c < 40; ++c) {
      const int64_t b = c / 32, i = c % 32;
      const uint8_t byte = q.packed[static_cast<size_t>((r * 2 + b) * 16 + i / 2)];
      const int value = i % 2 ? byte >> 4 : byte & 0xF;
      const uint8_t zp_byte = q.zero_points[static_cast<size_t>(r)];
      const int zp = b % 2 ? zp_byte >> 4 : zp_byte & 0xF;
      const float scale = q.scales[static_cast<size_t>(r * 2 + b)];
      EXPECT_LE(std::fabs((value - zp) * scale - w[static_cast<size_t>(r * 40 + c)]), scale * 0.5f + 1e-6f);
    }
  }
}

}  // namespace
}  // namespace modelkit::builder
