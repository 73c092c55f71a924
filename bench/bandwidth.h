// The machine's memory read bandwidth, the ceiling of memory-bound decoding.
#pragma once

#include <cstddef>

namespace modelkit::bench {

// Best of `passes` read bandwidth in bytes/s: each of `threads` threads sums its slice of a `bytes` buffer (read
// only, every page touched before timing).
double ReadBandwidth(size_t bytes, int threads, int passes);

}  // namespace modelkit::bench
