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
#include "modelkit/base/huge_pages.h"
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

// Whether this kernel implements MADV_POPULATE_WRITE, asked on a scratch mapping.
bool KernelPopulatesOnRequest() {
#ifdef MADV_POPULATE_WRITE
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* map = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return false;
  const bool populated = madvise(map, page, MADV_POPULATE_WRITE) == 0;
  munmap(map, page);
  return populated;
#else
  return false;
#endif
}

TEST(KvCacheTest, ReserveMakesTheStepsPositionsAndTheMarginResidentInEveryHead) {
  ort::EnsureApi();
  DecoderConfig decoder;
  decoder.num_hidden_layers = 2;
  decoder.num_key_value_heads = 4;
  decoder.head_size = 128;  // 512 B per fp32 position: 8 positions per 4 KiB page
  constexpr int64_t kLength = 8192;
  constexpr size_t kRow = 128 * sizeof(float);
  constexpr size_t kHeadBytes = size_t{kLength} * kRow;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  KvCache cache(decoder, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, kLength);
  const auto pages_of = [&](int64_t positions) { return (static_cast<size_t>(positions) * kRow + page - 1) / page; };
  // Resident pages of each head of each tensor.
  const auto resident = [&] {
    std::vector<size_t> counts;
    for (size_t i = 0; i < 4; ++i) {
      const auto* data = reinterpret_cast<const std::byte*>(cache.Past(i).GetTensorData<float>());
      for (size_t head = 0; head < 4; ++head) {
        counts.push_back(CountResident(ResidentPages(data + head * kHeadBytes, kHeadBytes)));
      }
    }
    return counts;
  };

  // With transparent huge pages on for every mapping, populating may take a whole huge page around the range.
  const size_t slack = TransparentHugePageMode() == "always" ? (size_t{2} << 20) / page : 0;
  const auto expect_resident = [&](int64_t positions) {
    for (const size_t count : resident()) {
      EXPECT_GE(count, pages_of(positions));
      EXPECT_LE(count, pages_of(positions) + slack);
    }
  };

  if (!KernelPopulatesOnRequest()) GTEST_SKIP() << "no MADV_POPULATE_WRITE here (Linux < 5.14): Reserve is a no-op";
  cache.Reserve(96);  // a 96-token prompt
  // Every head of every tensor holds the prompt's positions and the margin, and nothing further.
  expect_resident(96 + KvCache::kResidentAhead);

  // Steps within the margin add nothing; the first one past it extends the margin again.
  cache.Commit(96);
  for (int64_t step = 0; step < KvCache::kResidentAhead; ++step) {
    cache.Reserve(1);
    cache.Commit(1);
  }
  expect_resident(96 + KvCache::kResidentAhead);
  cache.Reserve(1);
  expect_resident(96 + 2 * KvCache::kResidentAhead + 1);

  // Never beyond the buffer.
  KvCache small(decoder, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, 16);
  small.Reserve(10);
  const auto* data = reinterpret_cast<const std::byte*>(small.Past(0).GetTensorData<float>());
  EXPECT_EQ(CountResident(ResidentPages(data, 4 * 16 * kRow)), 4 * pages_of(16));
}

}  // namespace
}  // namespace modelkit::generate
