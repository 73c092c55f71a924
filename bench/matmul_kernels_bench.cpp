// Single-thread speed of modelkit's int4 and fp32 CPU kernels on one layer-sized matrix (K = 1024, N = 3072, random
// weights), for changes to the kernels themselves: the whole-model bench (generation_vs_genai.py) is too noisy on a
// shared machine to see a few percent. Each shape runs REPEATS times and the fastest run counts (noise only ever adds
// time). Prints, per row count, microseconds per call and what that is per row and 1024 x 16 weights:
//   modelkit_matmul_kernels_bench [REPEATS=50]
// Asserts nothing; compare two builds' output, run one after the other on an idle machine.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "generate/fp32_matmul_kernel.h"
#include "generate/int4_matmul_kernel.h"

namespace {

constexpr size_t kK = 1024, kN = 3072;

template <typename Call>
double FastestMicroseconds(int repeats, const Call& call) {
  double best = 1e300;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void Print(const char* kernel, size_t rows, double microseconds) {
  const double per_row_tile = microseconds * 1000.0 / static_cast<double>(rows) / (kN / 16) / (kK / 1024.0);
  std::printf("%-5s rows %4zu: %9.1f us per call, %6.2f ns per row and 1024 x 16 weights\n", kernel, rows, microseconds,
              per_row_tile);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace modelkit::generate;
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 50;
  std::mt19937 random(1);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::uniform_int_distribution<int> byte(0, 255);
  const size_t max_rows = 128;
  std::vector<float> a(max_rows * kK), c(max_rows * kN);
  for (float& x : a) x = value(random);
  const size_t row_counts[] = {1, 8, 128};
  if (Int4KernelSupported()) {
    std::vector<uint8_t> qweight(kN * kK / 2);
    std::vector<float> scales(kN * kK / kInt4BlockSize);
    for (uint8_t& b : qweight) b = static_cast<uint8_t>(byte(random));
    for (float& s : scales) s = 0.01f + 0.01f * value(random);
    const PackedInt4Matrix packed(qweight.data(), scales.data(), kK, kN);
    QuantizedRows quantized;
    QuantizeRows(a.data(), max_rows, kK, quantized);
    for (const size_t rows : row_counts) {
      Print("int4", rows, FastestMicroseconds(repeats, [&] {
              MultiplyInt4Tiles(packed, quantized, 0, rows, 0, packed.tiles(), c.data());
            }));
    }
  } else {
    std::printf("int4: this CPU lacks AVX-512 VNNI\n");
  }
  if (Fp32KernelSupported()) {
    std::vector<float> b(kK * kN);
    for (float& x : b) x = value(random);
    const PackedFp32Matrix packed(b.data(), kK, kN);
    for (const size_t rows : row_counts) {
      Print("fp32", rows, FastestMicroseconds(repeats, [&] {
              MultiplyFp32Tiles(packed, a.data(), 0, rows, 0, packed.tiles(), c.data());
            }));
    }
  } else {
    std::printf("fp32: this CPU lacks AVX-512\n");
  }
  return 0;
}
