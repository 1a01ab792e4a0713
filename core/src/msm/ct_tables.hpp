// The constant-time multiscalar multiplication's scratch: 1P..8P for each point and the
// signed radix-16 digits of each secret scalar, read through ct_select (arith/ct_select.hpp).
#pragma once

#include <span>
#include <vector>

#include "arith/ct_select.hpp"
#include "arith/scalar_recoding.hpp"
#include "bp/detail/edwards.hpp"
#include "bp/ristretto.hpp"

namespace bp::detail {

struct CtLookupTable {
  CachedPoint multiples[8];  // 1P .. 8P
};

inline CtLookupTable ct_lookup_table(const EdwardsPoint& p) {
  CtLookupTable t;
  t.multiples[0] = to_cached(p);
  EdwardsPoint acc = p;
  for (int i = 1; i < 8; ++i) {
    acc = to_extended(add(p, t.multiples[i - 1]));
    t.multiples[i] = to_cached(acc);
  }
  return t;
}

// 64 signed radix-16 digits per scalar (scalar i's digit j at i·64 + j), in per-thread
// scratch that both backends share and the caller wipes: a per-proof allocation above
// glibc's mmap threshold would be mapped and unmapped every time.
inline std::vector<int8_t>& ct_digits(std::span<const Scalar> scalars) {
  thread_local std::vector<int8_t> digits;
  digits.resize(scalars.size() * 64);
  for (size_t i = 0; i < scalars.size(); ++i) to_radix16(&digits[i * 64], scalars[i]);
  return digits;
}

// 1P..8P for every point, in per-thread scratch like ct_digits.
inline std::vector<CtLookupTable>& ct_lookup_tables(std::span<const RistrettoPoint> points) {
  thread_local std::vector<CtLookupTable> tables;
  tables.resize(points.size());
  for (size_t i = 0; i < points.size(); ++i) tables[i] = ct_lookup_table(points[i].edwards());
  return tables;
}

}  // namespace bp::detail
