#include "modelkit/perf/host_tensor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "perf/npz.h"

namespace modelkit::perf {
namespace {

TensorSpec SpecOf(ElementType type, std::string name = "x") {
  TensorSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  return spec;
}

template <typename T>
std::vector<T> Values(const HostTensor& tensor) {
  std::vector<T> out(tensor.data.size() / sizeof(T));
  std::memcpy(out.data(), tensor.data.data(), out.size() * sizeof(T));
  return out;
}

// The doubles that the elements of a numeric tensor hold, however they are stored.
std::vector<double> AsDoubles(const HostTensor& tensor) {
  std::vector<double> out;
  switch (tensor.type) {
    case ElementType::kFloat:
      for (float v : Values<float>(tensor)) out.push_back(v);
      break;
    case ElementType::kDouble:
      for (double v : Values<double>(tensor)) out.push_back(v);
      break;
    case ElementType::kFloat16:
      for (uint16_t v : Values<uint16_t>(tensor)) out.push_back(HalfBitsToFloat(v));
      break;
    case ElementType::kBFloat16:
      for (uint16_t v : Values<uint16_t>(tensor)) out.push_back(BFloat16BitsToFloat(v));
      break;
    default:
      ADD_FAILURE() << "not a floating type";
  }
  return out;
}

float FromBits(uint32_t bits) { return std::bit_cast<float>(bits); }
bool IsHalfNaN(uint16_t bits) { return (bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu) != 0; }

const ElementType kNumericTypes[] = {
    ElementType::kFloat,  ElementType::kDouble, ElementType::kFloat16, ElementType::kBFloat16, ElementType::kBool,
    ElementType::kUint8,  ElementType::kInt8,   ElementType::kUint16,  ElementType::kInt16,    ElementType::kInt32,
    ElementType::kUint32, ElementType::kInt64,  ElementType::kUint64};

TEST(HostTensorSynthetic, SizesPerType) {
  for (ElementType type : kNumericTypes) {
    const HostTensor tensor = MakeSyntheticTensor(SpecOf(type, "in"), {2, 3, 4}, 1);
    EXPECT_EQ(tensor.name, "in");
    EXPECT_EQ(tensor.type, type);
    EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 3, 4}));
    EXPECT_EQ(tensor.ElementCount(), 24u);
    EXPECT_EQ(tensor.data.size(), 24u * ElementSize(type)) << ElementTypeName(type);
    EXPECT_TRUE(tensor.strings.empty());
  }
  EXPECT_EQ(MakeSyntheticTensor(SpecOf(ElementType::kFloat), {}, 1).data.size(), 4u);  // a scalar
  EXPECT_EQ(MakeSyntheticTensor(SpecOf(ElementType::kInt64), {3, 0}, 1).data.size(), 0u);
}

TEST(HostTensorSynthetic, Strings) {
  const HostTensor tensor = MakeSyntheticTensor(SpecOf(ElementType::kString), {2, 2}, 5);
  EXPECT_EQ(tensor.type, ElementType::kString);
  EXPECT_EQ(tensor.strings, (std::vector<std::string>(4, "modelkit")));
  EXPECT_TRUE(tensor.data.empty());
}

TEST(HostTensorSynthetic, FloatsInUnitInterval) {
  for (ElementType type : {ElementType::kFloat, ElementType::kDouble, ElementType::kFloat16, ElementType::kBFloat16}) {
    for (uint64_t seed : {0ull, 1ull, 42ull}) {
      const std::vector<double> values = AsDoubles(MakeSyntheticTensor(SpecOf(type), {100000}, seed));
      ASSERT_EQ(values.size(), 100000u);
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      EXPECT_GE(*lo, 0.0) << ElementTypeName(type) << " seed " << seed;
      EXPECT_LT(*hi, 1.0) << ElementTypeName(type) << " seed " << seed;
      double sum = 0;
      for (double v : values) sum += v;
      EXPECT_NEAR(sum / values.size(), 0.5, 0.01) << ElementTypeName(type);
      EXPECT_LT(*lo, 0.01);
      EXPECT_GT(*hi, 0.99);
    }
  }
}

template <typename T>
void ExpectZeroOrOneBoth(ElementType type) {
  const std::vector<T> values = Values<T>(MakeSyntheticTensor(SpecOf(type), {1000}, 7));
  ASSERT_EQ(values.size(), 1000u);
  std::set<T> seen(values.begin(), values.end());
  EXPECT_EQ(seen, (std::set<T>{T(0), T(1)})) << ElementTypeName(type);
  const auto ones = std::count(values.begin(), values.end(), T(1));
  EXPECT_GT(ones, 400) << ElementTypeName(type);
  EXPECT_LT(ones, 600) << ElementTypeName(type);
}

TEST(HostTensorSynthetic, IntegersAndBoolsAreZeroOrOne) {
  ExpectZeroOrOneBoth<uint8_t>(ElementType::kBool);
  ExpectZeroOrOneBoth<uint8_t>(ElementType::kUint8);
  ExpectZeroOrOneBoth<int8_t>(ElementType::kInt8);
  ExpectZeroOrOneBoth<uint16_t>(ElementType::kUint16);
  ExpectZeroOrOneBoth<int16_t>(ElementType::kInt16);
  ExpectZeroOrOneBoth<int32_t>(ElementType::kInt32);
  ExpectZeroOrOneBoth<uint32_t>(ElementType::kUint32);
  ExpectZeroOrOneBoth<int64_t>(ElementType::kInt64);
  ExpectZeroOrOneBoth<uint64_t>(ElementType::kUint64);
}

TEST(HostTensorSynthetic, DeterministicPerSeedAndSeedsDiffer) {
  for (ElementType type : kNumericTypes) {
    const HostTensor a = MakeSyntheticTensor(SpecOf(type), {4, 64}, 123);
    const HostTensor b = MakeSyntheticTensor(SpecOf(type), {4, 64}, 123);
    const HostTensor c = MakeSyntheticTensor(SpecOf(type), {4, 64}, 124);
    EXPECT_EQ(a.data, b.data) << ElementTypeName(type);
    EXPECT_NE(a.data, c.data) << ElementTypeName(type);
  }
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

TEST(HalfBFloat16Bits, KnownEncodingsAndTies) {
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

TEST(HalfBFloat16Bits, InfinityAndNaN) {
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

TEST(HalfBFloat16Bits, ExhaustiveRoundTripAndNearestEven) {
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

}  // namespace
}  // namespace modelkit::perf
