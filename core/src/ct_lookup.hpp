// Constant-time table lookups for the prover's multiscalar multiplications (every
// backend reads its operands through these, so the access pattern never depends on a
// secret digit).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bp/detail/edwards.hpp"
#include "bp/ristretto.hpp"
#include "scalar_recoding.hpp"

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

// |digit|·P with the sign applied, from entries[k] = (k+1)·P, reading every entry so the
// access pattern does not depend on the digit.
template <class Entry>
Entry ct_select(const Entry* entries, const Entry& identity, int8_t digit) {
  const uint64_t sign_mask = 0 - static_cast<uint64_t>(static_cast<uint8_t>(digit) >> 7);
  const int64_t abs = (static_cast<int64_t>(digit) ^ static_cast<int64_t>(sign_mask)) - static_cast<int64_t>(sign_mask);
  Entry r = identity;
  for (int k = 1; k <= 8; ++k) {
    const uint64_t diff = static_cast<uint64_t>(abs ^ k);
    const uint64_t eq = ((diff | (0 - diff)) >> 63) - 1;
    cmov(r, entries[k - 1], eq);
  }
  cneg(r, sign_mask);
  return r;
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
