// The signed radix-2^c digits of the bucket methods (Pippenger, and the single pass over
// shifted tables), shared by every backend's bucket loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "bp/detail/edwards.hpp"
#include "bp/precomputed.hpp"
#include "bp/scalar.hpp"
#include "arith/scalar_recoding.hpp"

namespace bp::detail {

struct PippengerDigits {
  int c = 0;                    // window width in bits
  int max_digits = 0;           // stride of one scalar's digits
  int count = 0;                // digits actually used (windows to process)
  size_t buckets = 0;           // 2^(c-1)
  std::vector<int32_t> digits;  // scalar i, window w: digits[i * max_digits + w]

  int32_t at(size_t i, int w) const { return digits[i * max_digits + w]; }
};

// Window width for n points: grows roughly with log2(n).
inline int pippenger_window_bits(size_t n) { return n < 500 ? 6 : n < 800 ? 7 : n < 3000 ? 8 : n < 10000 ? 9 : 10; }

// Point additions Pippenger spends on n points (every point once per window, then about
// three additions' worth per bucket to sum the buckets), for choosing between algorithms.
inline double pippenger_cost(size_t n) {
  const int c = pippenger_window_bits(n);
  return static_cast<double>((256 + c - 1) / c + 1) *
         (static_cast<double>(n) + 1.5 * static_cast<double>(size_t{1} << c));
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

// ShiftedBaseTable's single bucket pass: every scalar's kWindows signed radix-2^11 digits
// (scalar i's window w at i·kWindows + w) into 2^10 buckets.
inline constexpr size_t kShiftedBuckets = size_t{1} << (ShiftedBaseTable::kWindowBits - 1);

inline void shifted_digits(std::span<const Scalar> scalars, std::vector<int32_t>& out) {
  constexpr int kWindows = ShiftedBaseTable::kWindows;
  out.resize(scalars.size() * kWindows);
  for (size_t i = 0; i < scalars.size(); ++i) {
    // The recoder writes 24 digits (11 bits each, up to bit 264) and a final carry, which
    // is zero for a canonical scalar (below 2^253): the 24 windows hold the whole scalar.
    int32_t all[(256 + ShiftedBaseTable::kWindowBits - 1) / ShiftedBaseTable::kWindowBits + 1];
    to_signed_radix_vartime(all, scalars[i], ShiftedBaseTable::kWindowBits);
    std::copy(all, all + kWindows, &out[i * kWindows]);
  }
}

// Additions the single pass spends on n fixed points: one per nonzero digit (23 of the 24
// windows carry bits), then about three per bucket to sum the buckets.
inline double shifted_buckets_cost(size_t n) {
  return 23.0 * static_cast<double>(n) + 3.0 * static_cast<double>(kShiftedBuckets);
}

// sum_k k·buckets[k-1], as a running sum of suffix sums.
inline EdwardsPoint sum_of_bucket_multiples(std::span<const EdwardsPoint> buckets) {
  EdwardsPoint running = buckets.back();
  EdwardsPoint sum = running;
  for (size_t k = buckets.size() - 1; k-- > 0;) {
    running = running + buckets[k];
    sum = sum + running;
  }
  return sum;
}

}  // namespace bp::detail
