// Constant-time selection from a table of multiples: every backend's prover reads its
// operands through it, so the access pattern never depends on a secret digit. Generic over
// the entry type (each backend's point forms); the tables themselves are the MSM's
// (msm/ct_tables.hpp).
#pragma once

#include <cstdint>

namespace bp::detail {

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

}  // namespace bp::detail
