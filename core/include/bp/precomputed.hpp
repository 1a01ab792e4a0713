// Precomputed tables for points that never change (B, B̃, every G_i and H_i), so that
// multiscalar multiplications involving them skip building a table per call and use a
// wider window than a one-off table would repay.
#pragma once

#include <cstddef>
#include <memory>
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

// P, 2^c·P, 2^(2c)·P, ... in affine form (c = kWindowBits), one entry per window of a
// signed radix-2^c scalar: with every window's copy of every fixed point precomputed, all
// windows of all fixed points fall into one set of 2^(c-1) buckets, with no doublings, so a
// large multiscalar multiplication over fixed points costs about 256/c additions per point
// (23 here, against 28 for width-8 NAF through VartimeBaseTable and 32 or more for
// Pippenger over the points themselves), reading the entries in order.
class ShiftedBaseTable {
 public:
  static constexpr int kWindowBits = 11;
  static constexpr int kWindows = 24;  // a canonical scalar is below 2^253 = 2^(23·11)

  const detail::AffineCached& shifted(int window) const { return entries_[window]; }  // 2^(c·window)·P

  static std::vector<ShiftedBaseTable> build(std::span<const RistrettoPoint> points);

 private:
  detail::AffineCached entries_[kWindows];
};

// A CtBaseTable of 16^j·P for each of the 64 signed radix-16 digits j of a scalar: the
// constant-time product by a secret scalar is then 64 lookups and additions with no
// doublings (against 252 doublings more through one CtBaseTable), for the few points
// multiplied on their own again and again: B and B̃ in every commitment. 61 KB each.
class CtCombTable {
 public:
  static constexpr int kPositions = 64;
  const CtBaseTable& position(int j) const { return positions_[j]; }
  static std::unique_ptr<CtCombTable> build(const RistrettoPoint& point);

 private:
  CtBaseTable positions_[kPositions];
};

// Constant-time multiscalar multiplication of fixed points by secret scalars.
RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables);
RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const CtCombTable* const> combs);

// Mixed multiscalar multiplication for public scalars: the fixed points come as tables,
// the others as points.
RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

// The same with the fixed points as shifted tables (one bucket pass over all of them; the
// other points by Straus or Pippenger).
RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const ShiftedBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

// Whether that beats VartimeBaseTable for this many fixed points (by counting additions,
// with Straus's cache penalty once its tables outgrow the cache).
bool shifted_tables_pay(size_t fixed_points);

}  // namespace bp
