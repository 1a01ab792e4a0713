// Constant-time Straus: every point gets a table of 1P..8P, every scalar 64 signed
// radix-16 digits; the loop does 4 doublings and one branch-free table lookup and
// addition per point per digit, whatever the digits are.
#include <sodium.h>

#include <vector>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "scalar_recoding.hpp"

namespace bp {

using namespace detail;

namespace {

struct LookupTable {
  CachedPoint multiples[8];  // 1P .. 8P
};

LookupTable build_table(const EdwardsPoint& p) {
  LookupTable t;
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
Entry select(const Entry* entries, const Entry& identity, int8_t digit) {
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

}  // namespace

RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables) {
  const size_t n = std::min(scalars.size(), tables.size());
  thread_local std::vector<int8_t> digits;
  digits.resize(n * 64);
  for (size_t i = 0; i < n; ++i) to_radix16(&digits[i * 64], scalars[i]);
  EdwardsPoint acc = kIdentity;
  for (int j = 63; j >= 0; --j) {
    if (j != 63) acc = mul_by_pow2(acc, 4);
    for (size_t i = 0; i < n; ++i) acc = to_extended(add(acc, select(&tables[i]->multiple(0), kAffineCachedIdentity, digits[i * 64 + j])));
  }
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(acc);
}

RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t n = std::min(scalars.size(), points.size());
  // Reused across calls: a per-proof allocation above glibc's mmap threshold would be
  // mapped and unmapped every time.
  thread_local std::vector<LookupTable> tables;
  thread_local std::vector<int8_t> digits;
  tables.resize(n);
  digits.resize(n * 64);
  for (size_t i = 0; i < n; ++i) {
    tables[i] = build_table(points[i].edwards());
    to_radix16(&digits[i * 64], scalars[i]);
  }
  EdwardsPoint acc = kIdentity;
  for (int j = 63; j >= 0; --j) {
    if (j != 63) acc = mul_by_pow2(acc, 4);
    for (size_t i = 0; i < n; ++i) acc = to_extended(add(acc, select(tables[i].multiples, kCachedIdentity, digits[i * 64 + j])));
  }
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(acc);
}

}  // namespace bp
