#include "modelkit/perf/host_tensor.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "modelkit/base/float16.h"

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
