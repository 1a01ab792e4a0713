// The nonzero NAF digits of a variable-time Straus multiscalar multiplication, grouped by
// bit position (a compressed sparse layout), so the main loop of every backend reads them
// in order and can prefetch the table entry it needs next.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bp/detail/edwards.hpp"
#include "bp/precomputed.hpp"
#include "bp/scalar.hpp"
#include "arith/scalar_recoding.hpp"

namespace bp::detail {

struct StrausTerm {
  const void* entry;  // AffineCached (fixed points) or the backend's dynamic table entry
  int8_t sign;        // +1 or -1
  bool fixed;
};

struct StrausTerms {
  std::vector<StrausTerm> terms;
  // In processing order, top bit first: the terms of bit j are [start[255 - j],
  // start[256 - j]), so the loop reads one contiguous array and can prefetch across bits.
  std::vector<uint32_t> start;
  int top = -1;  // highest bit with a term, -1 when there is none
};

// Width of the NAF for points without a precomputed table (8 odd multiples per point).
inline constexpr int kDynamicNafWidth = 5;

// dynamic_entry(i, d) must return the address of the table entry for the odd digit d of
// points[i] in the backend's form: |d|·P (the loop applies the sign), or d·P itself when
// the backend keeps negated multiples too.
template <class DynamicEntry>
void straus_terms(std::span<const Scalar> fixed_scalars, std::span<const VartimeBaseTable* const> fixed_tables,
                  std::span<const Scalar> scalars, DynamicEntry&& dynamic_entry, StrausTerms& out) {
  const size_t nf = fixed_tables.size(), nd = scalars.size(), n = nf + nd;
  // Scratch reused across calls (see msm_ct.cpp for why).
  thread_local std::vector<NafDigit> digits;
  thread_local std::vector<int> counts;
  digits.resize(n * 256);
  counts.resize(n);
  const auto recode = [&](size_t first, std::span<const Scalar> of, int width) {
    size_t i = 0;
    for (; i + 2 <= of.size(); i += 2)
      to_naf_vartime_x2(&digits[(first + i) * 256], of[i], &digits[(first + i + 1) * 256], of[i + 1], width,
                        &counts[first + i]);
    if (i < of.size()) counts[first + i] = to_naf_vartime(&digits[(first + i) * 256], of[i], width);
  };
  recode(0, fixed_scalars.first(nf), VartimeBaseTable::kWidth);
  recode(nf, scalars.first(nd), kDynamicNafWidth);
  out.start.assign(257, 0);
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < counts[i]; ++k) ++out.start[256 - digits[i * 256 + k].pos];
  for (int j = 0; j < 256; ++j) out.start[j + 1] += out.start[j];
  out.terms.resize(out.start[256]);
  std::vector<uint32_t> fill(out.start.begin(), out.start.end() - 1);
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < counts[i]; ++k) {
      const NafDigit digit = digits[i * 256 + k];
      const int d = digit.value;
      const int index = (d > 0 ? d : -d) / 2;
      const void* entry = i < nf ? static_cast<const void*>(&fixed_tables[i]->odd_multiple(index))
                                 : static_cast<const void*>(dynamic_entry(i - nf, d));
      out.terms[fill[255 - digit.pos]++] = StrausTerm{entry, static_cast<int8_t>(d > 0 ? 1 : -1), i < nf};
    }
  }
  out.top = 255;
  while (out.top >= 0 && out.start[256 - out.top] == out.start[255 - out.top]) --out.top;
}

// How far ahead the Straus loops prefetch table entries.
inline constexpr size_t kStrausPrefetchDistance = 4;

// An affine table entry is 120 bytes at a 120-byte stride, so it often spans three cache
// lines: fetch its first and last byte's lines and the one between.
inline void prefetch_term(const StrausTerm& term) {
  const char* p = static_cast<const char*>(term.entry);
  __builtin_prefetch(p);
  __builtin_prefetch(p + 64);
  __builtin_prefetch(p + sizeof(AffineCached) - 1);
}

}  // namespace bp::detail
