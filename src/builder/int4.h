// Block-wise 4-bit weight quantisation in the layout of ORT's MatMulNBits (com.microsoft): for W of shape [N, K]
// (Hugging Face [out, in]), each row is cut into blocks of `block_size` along K (the last block zero-padded);
// each block has one fp32 scale and a 4-bit zero point (8 when symmetric); values are packed two per byte, low
// nibble first. Dequantised value = (q - zero_point) * scale.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace modelkit::builder {

struct Int4Weight {
  int64_t n = 0;
  int64_t k = 0;
  int64_t block_size = 32;
  int64_t blocks_per_row = 0;
  std::vector<uint8_t> packed;       // [n, blocks_per_row, block_size / 2]
  std::vector<float> scales;         // [n * blocks_per_row]
  std::vector<uint8_t> zero_points;  // empty when symmetric, else [n * ceil(blocks_per_row / 2)], low nibble first
};

// Quantises row-major `w` ([n, k]) with round-to-nearest. block_size must be a power of two >= 16.
Int4Weight QuantizeInt4(std::span<const float> w, int64_t n, int64_t k, int64_t block_size, bool symmetric);

}  // namespace modelkit::builder
