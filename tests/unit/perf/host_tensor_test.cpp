#include "modelkit/perf/host_tensor.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "modelkit/base/float16.h"
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

}  // namespace
}  // namespace modelkit::perf
