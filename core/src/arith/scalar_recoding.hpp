// Rewriting scalars as digit strings for the multiscalar multiplication loops.
#pragma once

#include <cstdint>

#include "bp/scalar.hpp"

namespace bp::detail {

// 64 signed radix-16 digits in [-8, 8) (the last in [-8, 8]) with sum d_i·16^i = s.
// Branch free: used on secret scalars.
void to_radix16(int8_t digits[64], const Scalar& s);

// Width-w non-adjacent form: sum of value·2^pos over the nonzero digits, each odd with
// |value| < 2^(w-1), any w consecutive positions holding at most one. Writes only the
// nonzero digits, in increasing position, and returns how many (runs of zeros are skipped
// a word at a time). Variable time (public scalars).
struct NafDigit {
  uint8_t pos;
  int8_t value;
};
int to_naf_vartime(NafDigit out[256], const Scalar& s, int w);
// Two scalars' NAFs in one loop, the same digits as two calls: each digit waits on the
// last one's position and carry, so one scalar alone leaves the core idle between them.
void to_naf_vartime_x2(NafDigit out0[256], const Scalar& s0, NafDigit out1[256], const Scalar& s1, int w,
                       int counts[2]);

// Signed radix-2^c digits in [-2^(c-1), 2^(c-1)], count = ceil(256 / c) + 1 at most.
// Variable time (public scalars). Returns the number of digits written.
int to_signed_radix_vartime(int32_t* digits, const Scalar& s, int c);

}  // namespace bp::detail
