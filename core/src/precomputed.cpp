#include "bp/precomputed.hpp"

#include <algorithm>

#include "scalar_recoding.hpp"

namespace bp {

using namespace detail;

std::vector<VartimeBaseTable> VartimeBaseTable::build(std::span<const RistrettoPoint> points) {
  // Projective odd multiples first, then one batch inversion for all their Z coordinates.
  const size_t total = points.size() * kEntries;
  std::vector<EdwardsPoint> multiples(total);
  for (size_t p = 0; p < points.size(); ++p) {
    const EdwardsPoint& P = points[p].edwards();
    const CachedPoint twice = to_cached(dbl(P));
    multiples[p * kEntries] = P;
    for (int k = 1; k < kEntries; ++k) multiples[p * kEntries + k] = to_extended(add(multiples[p * kEntries + k - 1], twice));
  }
  std::vector<Fe> prefix(total);
  Fe acc = kFeOne;
  for (size_t i = 0; i < total; ++i) {
    prefix[i] = acc;
    acc = fe_mul(acc, multiples[i].Z);
  }
  Fe inv = fe_invert(acc);
  std::vector<VartimeBaseTable> tables(points.size());
  for (size_t i = total; i-- > 0;) {
    const Fe z_inv = fe_mul(inv, prefix[i]);
    inv = fe_mul(inv, multiples[i].Z);
    const Fe x = fe_mul(multiples[i].X, z_inv);
    const Fe y = fe_mul(multiples[i].Y, z_inv);
    tables[i / kEntries].entries_[i % kEntries] = {fe_carry(fe_add(y, x)), fe_sub(y, x), fe_mul(fe_mul(x, y), kD2)};
  }
  return tables;
}

namespace {

constexpr int kDynamicWidth = 5;

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
  // Scratch reused across calls (see msm_ct.cpp for why).
  thread_local std::vector<int8_t> nafs;
  thread_local std::vector<DynamicOddMultiples> dynamic;
  nafs.resize((nf + nd) * 256);
  dynamic.resize(nd);
  int top = -1;
  auto recode = [&](size_t slot, const Scalar& s, int width) {
    int8_t* naf = &nafs[slot * 256];
    to_naf_vartime(naf, s, width);
    for (int j = 255; j > top; --j)
      if (naf[j] != 0) {
        top = j;
        break;
      }
  };
  for (size_t i = 0; i < nf; ++i) recode(i, fixed_scalars[i], VartimeBaseTable::kWidth);
  for (size_t i = 0; i < nd; ++i) {
    recode(nf + i, scalars[i], kDynamicWidth);
    dynamic[i] = dynamic_odd_multiples(points[i].edwards());
  }
  if (top < 0) return RistrettoPoint::identity();

  ProjectivePoint acc{kFeZero, kFeOne, kFeOne};
  CompletedPoint t{};
  for (int j = top; j >= 0; --j) {
    t = dbl(acc);
    for (size_t i = 0; i < nf; ++i) {
      const int8_t d = nafs[i * 256 + j];
      if (d > 0)
        t = add(to_extended(t), fixed_tables[i]->odd_multiple(d / 2));
      else if (d < 0)
        t = sub(to_extended(t), fixed_tables[i]->odd_multiple(-d / 2));
    }
    for (size_t i = 0; i < nd; ++i) {
      const int8_t d = nafs[(nf + i) * 256 + j];
      if (d > 0)
        t = add(to_extended(t), dynamic[i].odd[d / 2]);
      else if (d < 0)
        t = sub(to_extended(t), dynamic[i].odd[-d / 2]);
    }
    acc = to_projective(t);
  }
  return RistrettoPoint(to_extended(t));
}

}  // namespace bp
