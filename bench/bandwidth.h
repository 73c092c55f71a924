// The machine's memory read bandwidth, the ceiling of memory-bound decoding.
#pragma once

#include <cstddef>

namespace modelkit::bench {

// Best of `passes` read bandwidth in bytes/s: each of `threads` threads reads its slice of a `bytes` buffer (every
// page touched before timing). The buffer is read the way modelkit's kernels read their weights, so that the
// "ceiling" is what this machine's best reader gets: in 2 MiB pages where the kernel grants them (as modelkit's packed
// weights are), with 512-bit loads and software prefetching 4 KiB ahead where the CPU has AVX-512, 4 independent sums
// otherwise.
double ReadBandwidth(size_t bytes, int threads, int passes);

}  // namespace modelkit::bench
