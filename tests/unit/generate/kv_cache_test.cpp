// The shared-buffer KV cache reads as zeros everywhere but is resident only where written, so a context-length
// buffer does not cost context-length memory for a short generation.
#include <gtest/gtest.h>

#include <cstring>

#include "generate/kv_cache.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/process_memory.h"

namespace modelkit::generate {
namespace {

double RssMb() { return perf::CurrentRssMb().value_or(0); }

TEST(KvCacheTest, SharedBuffersAreZeroAndResidentOnlyWhereWritten) {
  ort::EnsureApi();
  DecoderConfig decoder;
  decoder.num_hidden_layers = 4;
  decoder.num_key_value_heads = 8;
  decoder.head_size = 128;
  constexpr int64_t kLength = 8192;  // 32 MiB per fp32 tensor, 256 MiB for the 8
  const double before = RssMb();
  KvCache cache(decoder, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, kLength);
  ASSERT_GT(before, 0) << "/proc/self/status is unreadable";
  EXPECT_EQ(cache.bytes(), size_t{8} * 8 * kLength * 128 * 4);
  EXPECT_LT(RssMb() - before, 16.0) << "creating the cache made its buffers resident";

  Ort::Value past = cache.Past(*cache.PastIndex("past_key_values.3.value"));
  EXPECT_EQ(past.GetTensorTypeAndShapeInfo().GetShape(), (std::vector<int64_t>{1, 8, kLength, 128}));
  float* data = past.GetTensorMutableData<float>();
  const size_t count = past.GetTensorTypeAndShapeInfo().GetElementCount();
  double sum = 0;
  for (size_t i = 0; i < count; i += 997) sum += data[i];
  EXPECT_EQ(sum, 0.0);
  // Present and past are the same buffer.
  EXPECT_EQ(cache.Present(*cache.PresentIndex("present.3.value"), 1).GetTensorMutableData<float>(), data);

  // Writing one tensor whole makes exactly that much resident (the measurement itself works).
  const double written = RssMb();
  std::memset(data, 0, count * sizeof(float));
  EXPECT_GT(RssMb() - written, 30.0);
  EXPECT_LT(RssMb() - before, 60.0);
}

}  // namespace
}  // namespace modelkit::generate
