// Prints this machine's memory read bandwidth in GB/s (one line, for scripts): modelkit_read_bandwidth [threads=2]
#include <cstdio>
#include <cstdlib>

#include "bandwidth.h"

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  if (threads < 1) {
    std::fprintf(stderr, "usage: modelkit_read_bandwidth [threads >= 1]\n");
    return 2;
  }
  std::printf("%.3f\n", modelkit::bench::ReadBandwidth(size_t{1} << 30, threads, 10) / 1e9);
  return 0;
}
