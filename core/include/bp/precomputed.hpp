// Precomputed tables for points that never change (B, B̃, every G_i and H_i), so that
// multiscalar multiplications involving them skip building a table per call and use a
// wider window than a one-off table would repay.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "bp/detail/edwards.hpp"
#include "bp/ristretto.hpp"

namespace bp {

// Odd multiples P, 3P, ..., (2·kEntries - 1)·P in affine form, for width-kWidth NAF
// digits of public scalars.
class VartimeBaseTable {
 public:
  static constexpr int kWidth = 8;
  static constexpr int kEntries = 1 << (kWidth - 2);

  const detail::AffineCached& odd_multiple(int index) const { return entries_[index]; }

  // Builds the tables of many points at once, sharing one field inversion.
  static std::vector<VartimeBaseTable> build(std::span<const RistrettoPoint> points);

 private:
  detail::AffineCached entries_[kEntries];
};

// The multiples 1P..8P in affine form, for constant-time multiplication by secret scalars
// written in signed radix 16 (every lookup reads all eight entries).
class CtBaseTable {
 public:
  const detail::AffineCached& multiple(int index) const { return entries_[index]; }  // (index + 1)·P
  static std::vector<CtBaseTable> build(std::span<const RistrettoPoint> points);

 private:
  detail::AffineCached entries_[8];
};

// Constant-time multiscalar multiplication of fixed points by secret scalars.
RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables);

// Mixed multiscalar multiplication for public scalars: the fixed points come as tables,
// the others as points.
RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

}  // namespace bp
