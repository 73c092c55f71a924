// fp16 and bf16 conversions: hand-checked encodings, ties to even, overflow, subnormals and NaN, and exhaustive
// round trips checked against values computed from the formats' definitions.
#include "modelkit/base/float16.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace modelkit {
namespace {

float FromBits(uint32_t bits) { return std::bit_cast<float>(bits); }
bool IsHalfNaN(uint16_t bits) { return (bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu) != 0; }

// The value of finite binary16 bits computed from the definition, independently of HalfBitsToFloat:
// (-1)^sign * mantissa * 2^-24 for subnormals, (-1)^sign * (1024 + mantissa) * 2^(exponent - 25) otherwise.
double HalfValueByDefinition(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000u) ? -magnitude : magnitude;
}

TEST(HalfBits, KnownEncodings) {
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalfBits(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalfBits(1.5f), 0x3E00);
  EXPECT_EQ(FloatToHalfBits(0.1f), 0x2E66);      // 1.6 * 2^-4: mantissa 614.4 -> 614
  EXPECT_EQ(FloatToHalfBits(1.0f / 3), 0x3555);  // 1.333 * 2^-2: mantissa 341.33 -> 341
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);  // largest finite half
  EXPECT_EQ(FloatToHalfBits(-65504.0f), 0xFBFF);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
}

TEST(HalfBits, TiesToEven) {
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);                          // 0x3C00 | 0x3C01
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);                      // 0x3C01 | 0x3C02
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);  // above the tie
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -20)), 0x3C00);  // below the tie
  EXPECT_EQ(FloatToHalfBits(2049.0f), 0x6800);                                               // 2048 | 2050 -> 2048
  EXPECT_EQ(FloatToHalfBits(2051.0f), 0x6802);                                               // 2050 | 2052 -> 2052
  EXPECT_EQ(FloatToHalfBits(-2051.0f), 0xE802);
  EXPECT_EQ(FloatToHalfBits(2.0f - std::ldexp(1.0f, -11)), 0x4000);  // carries into the exponent
}

TEST(HalfBits, OverflowToInfinity) {
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7BFF);  // below the tie with the next (virtual) step 65536
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);  // the tie rounds to even: infinity
  EXPECT_EQ(FloatToHalfBits(65536.0f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(1e6f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-1e6f), 0xFC00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(IsHalfNaN(FloatToHalfBits(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(IsHalfNaN(FloatToHalfBits(FromBits(0x7F800001u))));  // signalling NaN stays NaN
  EXPECT_TRUE(IsHalfNaN(FloatToHalfBits(FromBits(0xFFC00000u))));
}

TEST(HalfBits, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest half subnormal
  EXPECT_EQ(FloatToHalfBits(tiny), 0x0001);
  EXPECT_EQ(FloatToHalfBits(-tiny), 0x8001);
  EXPECT_EQ(FloatToHalfBits(1023 * tiny), 0x03FF);  // largest subnormal
  EXPECT_EQ(FloatToHalfBits(tiny / 2), 0x0000);     // tie between 0 and 1 -> 0
  EXPECT_EQ(FloatToHalfBits(-tiny / 2), 0x8000);
  EXPECT_EQ(FloatToHalfBits(tiny * 0.75f), 0x0001);  // above the tie
  EXPECT_EQ(FloatToHalfBits(tiny * 0.25f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(tiny * 1.5f), 0x0002);     // 1 | 2 -> 2
  EXPECT_EQ(FloatToHalfBits(tiny * 2.5f), 0x0002);     // 2 | 3 -> 2
  EXPECT_EQ(FloatToHalfBits(tiny * 1023.5f), 0x0400);  // tie into the smallest normal
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -30)), 0x0000);
}

TEST(HalfBits, DecodeKnownValues) {
  EXPECT_EQ(HalfBitsToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfBitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(HalfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfBitsToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfBitsToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(HalfBitsToFloat(0x8000)));
  EXPECT_EQ(HalfBitsToFloat(0x8000), 0.0f);
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7C01)));
}

TEST(HalfBits, ExhaustiveRoundTripAndOrder) {
  int checked = 0;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto half = static_cast<uint16_t>(bits);
    const float value = HalfBitsToFloat(half);
    if (IsHalfNaN(half)) {
      EXPECT_TRUE(std::isnan(value)) << std::hex << bits;
      EXPECT_TRUE(IsHalfNaN(FloatToHalfBits(value))) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(FloatToHalfBits(value), half) << std::hex << bits;
    // Within each sign, larger patterns are larger magnitudes.
    if ((half & 0x7FFFu) != 0) {
      EXPECT_LT(std::fabs(HalfBitsToFloat(half - 1)), std::fabs(value)) << std::hex << bits;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 65536 - 2 * 1023);
}

// For floats across the whole range, FloatToHalfBits picks the nearest half value (ties to the even pattern),
// found by searching the sorted table of positive half values.
TEST(HalfBits, NearestEvenAgainstSearch) {
  std::vector<double> table;  // value of patterns 0x0000..0x7BFF
  for (uint32_t bits = 0; bits < 0x7C00; ++bits) table.push_back(HalfBitsToFloat(static_cast<uint16_t>(bits)));
  for (uint32_t bits = 0; bits < 0x7F800000u; bits += 997) {
    const double x = FromBits(bits);
    uint16_t expected = 0x7C00;
    if (x < 65520.0) {
      const auto upper = std::lower_bound(table.begin(), table.end(), x);
      if (upper == table.end()) {
        expected = 0x7BFF;
      } else if (*upper == x || upper == table.begin()) {
        expected = static_cast<uint16_t>(upper - table.begin());
      } else {
        const auto hi = static_cast<uint16_t>(upper - table.begin());
        const auto lo = static_cast<uint16_t>(hi - 1);
        const double below = x - table[lo];
        const double above = table[hi] - x;
        expected = below < above ? lo : above < below ? hi : ((lo & 1u) ? hi : lo);
      }
    }
    ASSERT_EQ(FloatToHalfBits(static_cast<float>(x)), expected) << std::hex << bits;
    ASSERT_EQ(FloatToHalfBits(static_cast<float>(-x)), expected | 0x8000u) << std::hex << bits;
  }
}

TEST(BFloat16Bits, KnownEncodingsAndTies) {
  EXPECT_EQ(FloatToBFloat16Bits(0.0f), 0x0000);
  EXPECT_EQ(FloatToBFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBFloat16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBFloat16Bits(-2.0f), 0xC000);
  EXPECT_EQ(FloatToBFloat16Bits(0.1f), 0x3DCD);                   // 0x3DCCCCCD: lower half above the tie
  EXPECT_EQ(FloatToBFloat16Bits(1.0f / 3), 0x3EAB);               // 0x3EAAAAAB
  EXPECT_EQ(FloatToBFloat16Bits(3.14159265f), 0x4049);            // 0x40490FDB: below the tie
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F808000u)), 0x3F80);  // tie, even stays
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F818000u)), 0x3F82);  // tie, odd rounds up
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F808001u)), 0x3F81);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F807FFFu)), 0x3F80);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3FFF8000u)), 0x4000);  // carries into the exponent
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x00018000u)), 0x0002);  // subnormal tie
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x00000001u)), 0x0000);
}

TEST(BFloat16Bits, InfinityAndNaN) {
  EXPECT_EQ(FloatToBFloat16Bits(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(FloatToBFloat16Bits(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(FloatToBFloat16Bits(std::numeric_limits<float>::max()), 0x7F80);  // rounds up past the largest
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x7F7F7FFFu)), 0x7F7F);
  for (uint32_t nan : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu}) {
    const uint16_t bits = FloatToBFloat16Bits(FromBits(nan));
    EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(bits))) << std::hex << nan;
    EXPECT_EQ(bits & 0x8000u, (nan >> 16) & 0x8000u) << std::hex << nan;
  }
}

TEST(BFloat16Bits, ExhaustiveRoundTripAndNearestEven) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float value = BFloat16BitsToFloat(b);
    EXPECT_EQ(std::bit_cast<uint32_t>(value), bits << 16);
    if (std::isnan(value)) continue;
    ASSERT_EQ(FloatToBFloat16Bits(value), b) << std::hex << bits;
  }
  for (uint32_t bits = 0; bits < 0x7F7F0000u; bits += 1009) {  // finite, below the largest bfloat16
    const double x = FromBits(bits);
    const auto lo = static_cast<uint16_t>(bits >> 16);
    const auto hi = static_cast<uint16_t>(lo + 1);
    const double below = x - BFloat16BitsToFloat(lo);
    const double above = static_cast<double>(BFloat16BitsToFloat(hi)) - x;
    const uint16_t expected = below < above ? lo : above < below ? hi : ((lo & 1u) ? hi : lo);
    ASSERT_EQ(FloatToBFloat16Bits(FromBits(bits)), expected) << std::hex << bits;
    ASSERT_EQ(FloatToBFloat16Bits(FromBits(bits | 0x80000000u)), expected | 0x8000u) << std::hex << bits;
  }
}

TEST(HalfBits, DecodeMatchesDefinitionForEveryFinitePattern) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto half = static_cast<uint16_t>(bits);
    if ((half & 0x7C00u) == 0x7C00u) continue;  // infinities and NaN: DecodeKnownValues
    const float value = HalfBitsToFloat(half);
    ASSERT_EQ(static_cast<double>(value), HalfValueByDefinition(half)) << std::hex << bits;
    ASSERT_EQ(std::signbit(value), (half & 0x8000u) != 0) << std::hex << bits;
  }
}

TEST(BFloat16Bits, DecodeKnownValues) {
  EXPECT_EQ(BFloat16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(BFloat16BitsToFloat(0xC000), -2.0f);
  EXPECT_EQ(BFloat16BitsToFloat(0x4049), 3.140625f);
  EXPECT_EQ(BFloat16BitsToFloat(0x3DCD), 0.10009765625f);
  EXPECT_EQ(BFloat16BitsToFloat(0x7F7F), 0x1.FEp127f);  // largest finite bfloat16
  EXPECT_EQ(BFloat16BitsToFloat(0x0080), std::numeric_limits<float>::min());
  EXPECT_EQ(BFloat16BitsToFloat(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
  EXPECT_EQ(BFloat16BitsToFloat(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(BFloat16BitsToFloat(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(BFloat16BitsToFloat(0x8000)));
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(0x7FC0)));
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(0x7F81)));
}

// Values whose binary16 and bfloat16 encodings are known from the formats' tables (not computed here).
TEST(Float16, RoundTripOfIndependentValues) {
  struct Case {
    float value;
    uint16_t half;
    uint16_t bfloat16;
  };
  const Case cases[] = {{1.0f, 0x3C00, 0x3F80},    {-1.0f, 0xBC00, 0xBF80},  {0.5f, 0x3800, 0x3F00},
                        {2.0f, 0x4000, 0x4000},    {-0.25f, 0xB400, 0xBE80}, {1024.0f, 0x6400, 0x4480},
                        {0.375f, 0x3600, 0x3EC0},  {-3.5f, 0xC300, 0xC060},  {0x1p-14f, 0x0400, 0x3880},
                        {0x1p-24f, 0x0001, 0x3380}};
  for (const Case& c : cases) {
    EXPECT_EQ(FloatToHalfBits(c.value), c.half) << c.value;
    EXPECT_EQ(HalfBitsToFloat(c.half), c.value) << c.value;
    EXPECT_EQ(FloatToBFloat16Bits(c.value), c.bfloat16) << c.value;
    EXPECT_EQ(BFloat16BitsToFloat(c.bfloat16), c.value) << c.value;
  }
}

}  // namespace
}  // namespace modelkit
