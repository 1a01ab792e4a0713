#include "bp/precomputed.hpp"

#include <algorithm>

#include "bp/msm.hpp"
#include "scalar_recoding.hpp"

namespace bp {

using namespace detail;

namespace {

// For every point P: first, first + step, first + 2·step, ... (count entries), in affine
// form, with one field inversion shared by all of them. first(P) is P or 2P·0 + P; step(P)
// is P or 2P, which covers both "all multiples" and "odd multiples".
std::vector<AffineCached> affine_progressions(std::span<const RistrettoPoint> points, size_t count, bool odd_only) {
  const size_t total = points.size() * count;
  std::vector<EdwardsPoint> multiples(total);
  for (size_t p = 0; p < points.size(); ++p) {
    const EdwardsPoint& P = points[p].edwards();
    const CachedPoint step = to_cached(odd_only ? dbl(P) : P);
    multiples[p * count] = P;
    for (size_t k = 1; k < count; ++k) multiples[p * count + k] = to_extended(add(multiples[p * count + k - 1], step));
  }
  std::vector<Fe> prefix(total);
  Fe acc = kFeOne;
  for (size_t i = 0; i < total; ++i) {
    prefix[i] = acc;
    acc = fe_mul(acc, multiples[i].Z);
  }
  Fe inv = fe_invert(acc);
  std::vector<AffineCached> out(total);
  for (size_t i = total; i-- > 0;) {
    const Fe z_inv = fe_mul(inv, prefix[i]);
    inv = fe_mul(inv, multiples[i].Z);
    const Fe x = fe_mul(multiples[i].X, z_inv);
    const Fe y = fe_mul(multiples[i].Y, z_inv);
    out[i] = {fe_carry(fe_add(y, x)), fe_sub(y, x), fe_mul(fe_mul(x, y), kD2)};
  }
  return out;
}

}  // namespace

std::vector<VartimeBaseTable> VartimeBaseTable::build(std::span<const RistrettoPoint> points) {
  const auto all = affine_progressions(points, kEntries, true);
  std::vector<VartimeBaseTable> tables(points.size());
  for (size_t i = 0; i < all.size(); ++i) tables[i / kEntries].entries_[i % kEntries] = all[i];
  return tables;
}

std::vector<CtBaseTable> CtBaseTable::build(std::span<const RistrettoPoint> points) {
  const auto all = affine_progressions(points, 8, false);
  std::vector<CtBaseTable> tables(points.size());
  for (size_t i = 0; i < all.size(); ++i) tables[i / 8].entries_[i % 8] = all[i];
  return tables;
}

namespace {

constexpr int kDynamicWidth = 5;
constexpr size_t kMixedPippengerThreshold = 768;

struct DynamicOddMultiples {
  CachedPoint odd[8];
};

DynamicOddMultiples dynamic_odd_multiples(const EdwardsPoint& p) {
  DynamicOddMultiples t;
  t.odd[0] = to_cached(p);
  const EdwardsPoint p2 = dbl(p);
  for (int k = 1; k < 8; ++k) t.odd[k] = to_cached(to_extended(add(p2, t.odd[k - 1])));
  return t;
}

}  // namespace

RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t nf = std::min(fixed_scalars.size(), fixed_tables.size());
  const size_t nd = std::min(scalars.size(), points.size());
  // With this many points the tables no longer stay in cache and the bucket method, which
  // touches each point once per window in order, wins (measured with bench/msm sizes).
  if (nf + nd >= kMixedPippengerThreshold) return detail::pippenger_vartime_mixed(fixed_scalars, fixed_tables, scalars, points);

  // The nonzero digits, grouped by bit position (a compressed sparse layout), so the main
  // loop reads them in order and can prefetch the table entry it needs next.
  struct Term {
    const void* entry;  // AffineCached (fixed) or CachedPoint (dynamic)
    int8_t digit_sign;  // +1 or -1
    bool fixed;
  };
  // Scratch reused across calls (see msm_ct.cpp for why).
  thread_local std::vector<int8_t> naf_all;
  thread_local std::vector<DynamicOddMultiples> dynamic;
  thread_local std::vector<uint32_t> count_at;
  thread_local std::vector<Term> terms;
  naf_all.resize((nf + nd) * 256);
  dynamic.resize(nd);
  count_at.assign(257, 0);
  for (size_t i = 0; i < nf; ++i) to_naf_vartime(&naf_all[i * 256], fixed_scalars[i], VartimeBaseTable::kWidth);
  for (size_t i = 0; i < nd; ++i) {
    to_naf_vartime(&naf_all[(nf + i) * 256], scalars[i], kDynamicWidth);
    dynamic[i] = dynamic_odd_multiples(points[i].edwards());
  }
  for (size_t i = 0; i < nf + nd; ++i)
    for (int j = 0; j < 256; ++j) count_at[j + 1] += naf_all[i * 256 + j] != 0;
  for (int j = 0; j < 256; ++j) count_at[j + 1] += count_at[j];
  terms.resize(count_at[256]);
  {
    std::vector<uint32_t> fill(count_at.begin(), count_at.end() - 1);
    for (size_t i = 0; i < nf + nd; ++i) {
      const int8_t* naf = &naf_all[i * 256];
      for (int j = 0; j < 256; ++j) {
        const int8_t d = naf[j];
        if (d == 0) continue;
        const int index = (d > 0 ? d : -d) / 2;
        const void* entry = i < nf ? static_cast<const void*>(&fixed_tables[i]->odd_multiple(index))
                                   : static_cast<const void*>(&dynamic[i - nf].odd[index]);
        terms[fill[j]++] = Term{entry, static_cast<int8_t>(d > 0 ? 1 : -1), i < nf};
      }
    }
  }
  int top = 255;
  while (top >= 0 && count_at[top + 1] == count_at[top]) --top;
  if (top < 0) return RistrettoPoint::identity();

  constexpr size_t kPrefetchDistance = 4;
  ProjectivePoint acc{kFeZero, kFeOne, kFeOne};
  CompletedPoint t{};
  for (int j = top; j >= 0; --j) {
    t = dbl(acc);
    const size_t end = count_at[j + 1];
    for (size_t k = count_at[j]; k < end; ++k) {
      if (k + kPrefetchDistance < end) {
        __builtin_prefetch(terms[k + kPrefetchDistance].entry);
        __builtin_prefetch(static_cast<const char*>(terms[k + kPrefetchDistance].entry) + 64);
      }
      const Term& term = terms[k];
      const EdwardsPoint e = to_extended(t);
      if (term.fixed) {
        const auto& q = *static_cast<const AffineCached*>(term.entry);
        t = term.digit_sign > 0 ? add(e, q) : sub(e, q);
      } else {
        const auto& q = *static_cast<const CachedPoint*>(term.entry);
        t = term.digit_sign > 0 ? add(e, q) : sub(e, q);
      }
    }
    acc = to_projective(t);
  }
  return RistrettoPoint(to_extended(t));
}

}  // namespace bp
