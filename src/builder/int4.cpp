#include "int4.h"

#include <algorithm>
#include <cmath>

#include "modelkit/base/check.h"

namespace modelkit::builder {

Int4Weight QuantizeInt4(std::span<const float> w, int64_t n, int64_t k, int64_t block_size, bool symmetric) {
  MODELKIT_CHECK(block_size >= 16 && (block_size & (block_size - 1)) == 0);
  MODELKIT_CHECK(static_cast<int64_t>(w.size()) == n * k);
  Int4Weight q;
  q.n = n;
  q.k = k;
  q.block_size = block_size;
  q.blocks_per_row = (k + block_size - 1) / block_size;
  const int64_t blob = block_size / 2;
  const int64_t zp_per_row = (q.blocks_per_row + 1) / 2;
  q.packed.assign(static_cast<size_t>(n * q.blocks_per_row * blob), 0);
  q.scales.assign(static_cast<size_t>(n * q.blocks_per_row), 0.0f);
  if (!symmetric) q.zero_points.assign(static_cast<size_t>(n * zp_per_row), 0);
  std::vector<float> block(static_cast<size_t>(block_size));
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t b = 0; b < q.blocks_per_row; ++b) {
      const int64_t begin = b * block_size;
      const int64_t len = std::min(block_size, k - begin);
      std::fill(block.begin(), block.end(), 0.0f);
      std::copy_n(w.data() + row * k + begin, len, block.begin());
      float scale = 0.0f;
      int zero_point = 8;
      if (symmetric) {
        // The value of largest magnitude maps to -8 so the full signed range is used (as ORT's own quantiser).
        float extreme = 0.0f;
        for (const float v : block) {
          if (std::fabs(v) > std::fabs(extreme)) extreme = v;
        }
        scale = extreme / -8.0f;
      } else {
        float lo = 0.0f, hi = 0.0f;
        for (const float v : block) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        scale = (hi - lo) / 15.0f;
        zero_point = scale != 0.0f ? static_cast<int>(std::clamp(std::nearbyint(-lo / scale), 0.0f, 15.0f)) : 8;
      }
      const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
      uint8_t* out = q.packed.data() + (row * q.blocks_per_row + b) * blob;
      for (int64_t i = 0; i < block_size; ++i) {
        const int value = static_cast<int>(
            std::clamp(std::nearbyint(block[static_cast<size_t>(i)] * inverse) + zero_point, 0.0f, 15.0f));
        out[i / 2] |= static_cast<uint8_t>(i % 2 == 0 ? value : value << 4);
      }
      q.scales[static_cast<size_t>(row * q.blocks_per_row + b)] = scale;
      if (!symmetric) {
        uint8_t& zp = q.zero_points[static_cast<size_t>(row * zp_per_row + b / 2)];
        zp |= static_cast<uint8_t>(b % 2 == 0 ? zero_point : zero_point << 4);
      }
    }
  }
  return q;
}

}  // namespace modelkit::builder
