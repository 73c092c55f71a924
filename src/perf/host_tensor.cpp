#include "modelkit/perf/host_tensor.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>

namespace modelkit::perf {
namespace {

// The largest values below 1.0 in binary16 and bfloat16 (positive values order like their bit patterns).
constexpr uint16_t kHalfBelowOne = 0x3BFF;
constexpr uint16_t kBFloat16BelowOne = 0x3F7F;

template <typename T>
void Store(std::vector<std::byte>& data, size_t index, T value) {
  std::memcpy(data.data() + index * sizeof(T), &value, sizeof(T));
}

}  // namespace

size_t HostTensor::ElementCount() const {
  size_t count = 1;
  for (int64_t dim : shape) count *= static_cast<size_t>(dim);
  return count;
}

uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t exponent = (bits >> 23) & 0xFFu;
  uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));  // inf / nan
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow to inf
  if (half_exponent <= 0) {                                                 // subnormal or zero
    if (half_exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - half_exponent;
    uint32_t half_mantissa = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) ++half_mantissa;
    return static_cast<uint16_t>(sign | half_mantissa);
  }
  uint32_t half = sign | (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  const uint32_t remainder = mantissa & 0x1FFFu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

uint16_t FloatToBFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

HostTensor MakeSyntheticTensor(const TensorSpec& spec, const std::vector<int64_t>& shape, uint64_t seed) {
  HostTensor tensor;
  tensor.name = spec.name;
  tensor.type = spec.type;
  tensor.shape = shape;
  const size_t count = tensor.ElementCount();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::uniform_int_distribution<int> bit(0, 1);
  if (spec.type == ElementType::kString) {
    tensor.strings.assign(count, "modelkit");
    return tensor;
  }
  tensor.data.resize(count * ElementSize(spec.type));
  for (size_t i = 0; i < count; ++i) {
    switch (spec.type) {
      case ElementType::kFloat:
        Store(tensor.data, i, unit(rng));
        break;
      case ElementType::kDouble:
        Store(tensor.data, i, static_cast<double>(unit(rng)));
        break;
      case ElementType::kFloat16:  // rounding to 16 bits can reach 1.0: keep the documented [0, 1)
        Store(tensor.data, i, std::min<uint16_t>(FloatToHalfBits(unit(rng)), kHalfBelowOne));
        break;
      case ElementType::kBFloat16:
        Store(tensor.data, i, std::min<uint16_t>(FloatToBFloat16Bits(unit(rng)), kBFloat16BelowOne));
        break;
      case ElementType::kBool:
      case ElementType::kUint8:
        Store(tensor.data, i, static_cast<uint8_t>(bit(rng)));
        break;
      case ElementType::kInt8:
        Store(tensor.data, i, static_cast<int8_t>(bit(rng)));
        break;
      case ElementType::kUint16:
        Store(tensor.data, i, static_cast<uint16_t>(bit(rng)));
        break;
      case ElementType::kInt16:
        Store(tensor.data, i, static_cast<int16_t>(bit(rng)));
        break;
      case ElementType::kInt32:
        Store(tensor.data, i, static_cast<int32_t>(bit(rng)));
        break;
      case ElementType::kUint32:
        Store(tensor.data, i, static_cast<uint32_t>(bit(rng)));
        break;
      case ElementType::kInt64:
        Store(tensor.data, i, static_cast<int64_t>(bit(rng)));
        break;
      case ElementType::kUint64:
        Store(tensor.data, i, static_cast<uint64_t>(bit(rng)));
        break;
      case ElementType::kString:
      case ElementType::kUndefined:
        break;
    }
  }
  return tensor;
}

}  // namespace modelkit::perf
