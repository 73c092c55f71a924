// The shared-buffer KV cache reads as zeros everywhere but is resident only where written, so a context-length
// buffer does not cost context-length memory for a short generation.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "generate/kv_cache.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::generate {
namespace {

// Which pages of [data, data + bytes) are resident, per mincore(2). It asks the kernel without touching the memory:
// on some kernels merely reading untouched anonymous memory makes it resident, so residency is measured before the
// test reads anything it has not written.
std::vector<bool> ResidentPages(const void* data, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % page, 0u) << "buffers are page-aligned mappings";
  std::vector<unsigned char> flags((bytes + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<void*>(data), bytes, flags.data()), 0) << std::strerror(errno);
  std::vector<bool> resident(flags.size());
  for (size_t i = 0; i < flags.size(); ++i) resident[i] = (flags[i] & 1) != 0;
  return resident;
}

size_t CountResident(const std::vector<bool>& pages, size_t from = 0) {
  return static_cast<size_t>(std::count(pages.begin() + static_cast<std::ptrdiff_t>(from), pages.end(), true));
}

TEST(KvCacheTest, SharedBuffersAreZeroAndResidentOnlyWhereWritten) {
  ort::EnsureApi();
  DecoderConfig decoder;
  decoder.num_hidden_layers = 4;
  decoder.num_key_value_heads = 8;
  decoder.head_size = 128;
  constexpr int64_t kLength = 8192;  // 4 MiB per head, 32 MiB per fp32 tensor, 256 MiB for the 8
  constexpr size_t kHeadFloats = size_t{kLength} * 128;
  constexpr size_t kTensorBytes = 8 * kHeadFloats * sizeof(float);
  KvCache cache(decoder, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, kLength);
  EXPECT_EQ(cache.bytes(), 8 * kTensorBytes);

  std::vector<float*> tensors;
  for (size_t i = 0; i < 8; ++i) {
    Ort::Value past = cache.Past(i);
    EXPECT_EQ(past.GetTensorTypeAndShapeInfo().GetShape(), (std::vector<int64_t>{1, 8, kLength, 128}));
    tensors.push_back(past.GetTensorMutableData<float>());
  }
  float* data = cache.Past(*cache.PastIndex("past_key_values.3.value")).GetTensorMutableData<float>();
  // Present and past are the same buffer.
  EXPECT_EQ(cache.Present(*cache.PresentIndex("present.3.value"), 1).GetTensorMutableData<float>(), data);

  // Creating the cache made nothing resident.
  for (const float* tensor : tensors) EXPECT_EQ(CountResident(ResidentPages(tensor, kTensorBytes)), 0u);

  // What a short generation writes: the first 15 positions of head 0 (7.5 KiB, so its last page is half written).
  constexpr size_t kWrittenFloats = 15 * 128;
  for (size_t i = 0; i < kWrittenFloats; ++i) data[i] = static_cast<float>(i + 1);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const std::vector<bool> pages = ResidentPages(data, kTensorBytes);
  // The written pages are resident (the measurement sees what is written)...
  for (size_t p = 0; p < (kWrittenFloats * sizeof(float) + page - 1) / page; ++p) EXPECT_TRUE(pages[p]) << p;
  // ...and nothing from head 1 on (4 MiB away: beyond any transparent huge page around the write), nor any page of
  // the other tensors.
  EXPECT_EQ(CountResident(pages, kHeadFloats * sizeof(float) / page), 0u);
  for (const float* tensor : tensors) {
    if (tensor != data) {
      EXPECT_EQ(CountResident(ResidentPages(tensor, kTensorBytes)), 0u);
    }
  }

  // Only now read what was not written: zeros, including the rest of the half-written page.
  for (size_t i = 0; i < kWrittenFloats; ++i) ASSERT_EQ(data[i], static_cast<float>(i + 1)) << i;
  for (size_t i = kWrittenFloats; i < 2 * page / sizeof(float); ++i) ASSERT_EQ(data[i], 0.0f) << i;
  for (const float* tensor : tensors) {
    for (size_t i = 2 * page / sizeof(float); i < 8 * kHeadFloats; i += 16411) ASSERT_EQ(tensor[i], 0.0f) << i;
  }
}

}  // namespace
}  // namespace modelkit::generate
