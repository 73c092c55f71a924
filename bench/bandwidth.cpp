#include "bandwidth.h"

#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

// GCC 12's AVX-512 headers make their "undefined" vectors by initialising a variable with itself, which
// -Wuninitialized reports wherever such an intrinsic is inlined (a known false positive, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace modelkit::bench {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Sums [begin, end) as 64-bit words with 512-bit loads, 4 KiB of prefetch ahead; `end - begin` a multiple of 256.
__attribute__((target("avx512f"))) uint64_t SumAvx512(const uint64_t* begin, const uint64_t* end) {
  __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
  for (const uint64_t* p = begin; p < end; p += 32) {
    _mm_prefetch(reinterpret_cast<const char*>(p) + 4096, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(p) + 4096 + 64, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(p) + 4096 + 128, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(p) + 4096 + 192, _MM_HINT_T0);
    a = _mm512_add_epi64(a, _mm512_load_si512(p));
    b = _mm512_add_epi64(b, _mm512_load_si512(p + 8));
    c = _mm512_add_epi64(c, _mm512_load_si512(p + 16));
    d = _mm512_add_epi64(d, _mm512_load_si512(p + 24));
  }
  return static_cast<uint64_t>(
      _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d))));
}

uint64_t SumPortable(const uint64_t* begin, const uint64_t* end) {
  uint64_t a = 0, b = 0, c = 0, d = 0;  // independent sums keep several loads in flight
  for (const uint64_t* p = begin; p < end; p += 4) {
    a += p[0];
    b += p[1];
    c += p[2];
    d += p[3];
  }
  return a + b + c + d;
}

}  // namespace

double ReadBandwidth(size_t bytes, int threads, int passes) {
  bytes = std::max(kHugePage, bytes / kHugePage * kHugePage);
  const size_t words = bytes / sizeof(uint64_t);
  std::unique_ptr<uint64_t, FreeDeleter> buffer(static_cast<uint64_t*>(std::aligned_alloc(kHugePage, bytes)));
  if (!buffer) return 0.0;
  ::madvise(buffer.get(), bytes, MADV_HUGEPAGE);           // a request: ignored where the kernel gives no huge pages
  for (size_t i = 0; i < words; ++i) buffer.get()[i] = i;  // touch every page before timing
  const bool avx512 = __builtin_cpu_supports("avx512f");
  double best = 0;
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<uint64_t> sums(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        // Slices of whole 2 KiB runs (256 words), so both readers need no tail.
        const size_t runs = words / 256;
        const uint64_t* begin = buffer.get() + runs * static_cast<size_t>(t) / static_cast<size_t>(threads) * 256;
        const uint64_t* end = buffer.get() + runs * static_cast<size_t>(t + 1) / static_cast<size_t>(threads) * 256;
        sums[static_cast<size_t>(t)] = avx512 ? SumAvx512(begin, end) : SumPortable(begin, end);
      });
    }
    for (auto& worker : workers) worker.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    volatile uint64_t sink = std::accumulate(sums.begin(), sums.end(), uint64_t{0});
    (void)sink;
    best = std::max(best, static_cast<double>(bytes) / seconds);
  }
  return best;
}

}  // namespace modelkit::bench
