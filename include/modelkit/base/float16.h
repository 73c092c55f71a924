// IEEE binary16 (fp16) and bfloat16 conversions: the one implementation every module uses.
#pragma once

#include <cstdint>

namespace modelkit {

// The binary16 bit pattern of `value`, rounded to nearest even: overflow becomes infinity, values below half the
// smallest subnormal become (signed) zero, NaN stays NaN (quiet).
uint16_t FloatToHalfBits(float value);

// The float that binary16 bits denote (exact: every half value is a float); subnormals, infinities and NaN included.
float HalfBitsToFloat(uint16_t bits);

// The bfloat16 bit pattern of `value` (the top 16 bits of the float), rounded to nearest even; NaN stays NaN (quiet).
uint16_t FloatToBFloat16Bits(float value);

// The float that bfloat16 bits denote (exact).
float BFloat16BitsToFloat(uint16_t bits);

}  // namespace modelkit
