#include "bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

namespace modelkit::bench {

double ReadBandwidth(size_t bytes, int threads, int passes) {
  const size_t words = bytes / sizeof(uint64_t);
  std::unique_ptr<uint64_t[]> buffer(new uint64_t[words]);
  for (size_t i = 0; i < words; ++i) buffer[i] = i;  // touch every page before timing
  double best = 0;
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<uint64_t> sums(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        const size_t begin = words * static_cast<size_t>(t) / static_cast<size_t>(threads);
        const size_t end = words * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
        uint64_t a = 0, b = 0, c = 0, d = 0;  // independent sums keep several loads in flight
        size_t i = begin;
        for (; i + 4 <= end; i += 4) {
          a += buffer[i];
          b += buffer[i + 1];
          c += buffer[i + 2];
          d += buffer[i + 3];
        }
        for (; i < end; ++i) a += buffer[i];
        sums[static_cast<size_t>(t)] = a + b + c + d;
      });
    }
    for (auto& worker : workers) worker.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    volatile uint64_t sink = std::accumulate(sums.begin(), sums.end(), uint64_t{0});
    (void)sink;
    best = std::max(best, static_cast<double>(words * sizeof(uint64_t)) / seconds);
  }
  return best;
}

}  // namespace modelkit::bench
