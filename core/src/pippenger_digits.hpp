// The signed radix-2^c digits of a Pippenger multiscalar multiplication, shared by every
// backend's bucket loop.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bp/scalar.hpp"
#include "scalar_recoding.hpp"

namespace bp::detail {

struct PippengerDigits {
  int c = 0;              // window width in bits
  int max_digits = 0;     // stride of one scalar's digits
  int count = 0;          // digits actually used (windows to process)
  size_t buckets = 0;     // 2^(c-1)
  std::vector<int32_t> digits;  // scalar i, window w: digits[i * max_digits + w]

  int32_t at(size_t i, int w) const { return digits[i * max_digits + w]; }
};

// Window width for n points: grows roughly with log2(n).
inline int pippenger_window_bits(size_t n) { return n < 500 ? 6 : n < 800 ? 7 : n < 3000 ? 8 : n < 10000 ? 9 : 10; }

// Point additions Pippenger spends on n points (every point once per window, then about
// three additions' worth per bucket to sum the buckets), for choosing between algorithms.
inline double pippenger_cost(size_t n) {
  const int c = pippenger_window_bits(n);
  return static_cast<double>((256 + c - 1) / c + 1) * (static_cast<double>(n) + 1.5 * static_cast<double>(size_t{1} << c));
}

// Fixed scalars first, then the others, in one numbering.
inline void pippenger_digits(std::span<const Scalar> fixed_scalars, std::span<const Scalar> scalars,
                             PippengerDigits& out) {
  const size_t n = fixed_scalars.size() + scalars.size();
  out.c = pippenger_window_bits(n);
  out.max_digits = (256 + out.c - 1) / out.c + 1;
  out.buckets = size_t{1} << (out.c - 1);
  out.digits.resize(n * out.max_digits);
  out.count = 0;
  size_t i = 0;
  for (const auto* part : {&fixed_scalars, &scalars})
    for (const Scalar& s : *part) out.count = to_signed_radix_vartime(&out.digits[i++ * out.max_digits], s, out.c);
}

}  // namespace bp::detail
