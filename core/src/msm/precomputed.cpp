#include "bp/precomputed.hpp"

#include <algorithm>

#include "group/affine_points.hpp"
#include "bp/msm.hpp"
#include "msm/msm_kernels.hpp"
#include "msm/op_tally.hpp"
#include "msm/pippenger_digits.hpp"
#include "arith/scalar_recoding.hpp"
#include "msm/straus_terms.hpp"

namespace bp {

using namespace detail;

namespace {

// For every point P: P, P + step, P + 2·step, ... (count entries) in affine form, where
// step is P or 2P, which covers both "all multiples" and "odd multiples".
std::vector<AffineCached> affine_progressions(std::span<const RistrettoPoint> points, size_t count, bool odd_only) {
  std::vector<EdwardsPoint> multiples(points.size() * count);
  for (size_t p = 0; p < points.size(); ++p) {
    const EdwardsPoint& P = points[p].edwards();
    const CachedPoint step = to_cached(odd_only ? dbl(P) : P);
    multiples[p * count] = P;
    for (size_t k = 1; k < count; ++k) multiples[p * count + k] = to_extended(add(multiples[p * count + k - 1], step));
  }
  std::vector<AffineCached> out;
  to_affine_cached(multiples, out);
  return out;
}

}  // namespace

std::vector<VartimeBaseTable> VartimeBaseTable::build(std::span<const RistrettoPoint> points) {
  const auto all = affine_progressions(points, kEntries, true);
  std::vector<VartimeBaseTable> tables(points.size());
  for (size_t i = 0; i < all.size(); ++i) tables[i / kEntries].entries_[i % kEntries] = all[i];
  return tables;
}

std::vector<ShiftedBaseTable> ShiftedBaseTable::build(std::span<const RistrettoPoint> points) {
  std::vector<EdwardsPoint> shifted(points.size() * kWindows);
  for (size_t p = 0; p < points.size(); ++p) {
    shifted[p * kWindows] = points[p].edwards();
    for (int k = 1; k < kWindows; ++k)
      shifted[p * kWindows + k] = mul_by_pow2(shifted[p * kWindows + k - 1], kWindowBits);
  }
  std::vector<AffineCached> all;
  to_affine_cached(shifted, all);
  std::vector<ShiftedBaseTable> tables(points.size());
  for (size_t i = 0; i < all.size(); ++i) tables[i / kWindows].entries_[i % kWindows] = all[i];
  return tables;
}

std::vector<CtBaseTable> CtBaseTable::build(std::span<const RistrettoPoint> points) {
  const auto all = affine_progressions(points, 8, false);
  std::vector<CtBaseTable> tables(points.size());
  for (size_t i = 0; i < all.size(); ++i) tables[i / 8].entries_[i % 8] = all[i];
  return tables;
}

std::unique_ptr<CtCombTable> CtCombTable::build(const RistrettoPoint& point) {
  std::vector<RistrettoPoint> powers(kPositions);  // 16^j·P
  powers[0] = point;
  for (int j = 1; j < kPositions; ++j) {
    RistrettoPoint p = powers[j - 1];
    for (int d = 0; d < 4; ++d) p = p + p;
    powers[j] = p;
  }
  const auto tables = CtBaseTable::build(powers);
  auto comb = std::make_unique<CtCombTable>();
  for (int j = 0; j < kPositions; ++j) comb->positions_[j] = tables[j];
  return comb;
}

namespace {

// Below this many points Straus always wins (its tables stay in cache).
constexpr size_t kMixedPippengerThreshold = 768;

// Additions Straus spends on its fixed points: 256/9 each (width-8 NAF), times 1.4 for the
// cache misses once the MSM has enough points (all of them) for the tables to outgrow the
// L2 cache (measured: the inner-product prover's 1025-point MSMs ran 10% faster with
// Straus, the m = 16 verifier's 2100 points and a 64-proof batch's 1200 mostly dynamic
// points faster with Pippenger, as this count predicts).
double straus_fixed_cost(size_t fixed, size_t all_points) {
  return (all_points >= kMixedPippengerThreshold ? 1.4 : 1.0) * 256.0 / 9.0 * static_cast<double>(fixed);
}

// Above the threshold, the cheaper of the two by counting point additions: the fixed
// points' cost above, and 256/6 plus its table per other point.
bool straus_cheaper(size_t fixed, size_t dynamic) {
  const double straus = straus_fixed_cost(fixed, fixed + dynamic) + 53.0 * static_cast<double>(dynamic);
  return straus < pippenger_cost(fixed + dynamic);
}

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

RistrettoPoint straus_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                    std::span<const VartimeBaseTable* const> fixed_tables,
                                    std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  thread_local std::vector<DynamicOddMultiples> dynamic;
  thread_local StrausTerms plan;
  dynamic.resize(points.size());
  for (size_t i = 0; i < points.size(); ++i) dynamic[i] = dynamic_odd_multiples(points[i].edwards());
  straus_terms(
      fixed_scalars, fixed_tables, scalars, [&](size_t i, int d) { return &dynamic[i].odd[(d > 0 ? d : -d) / 2]; },
      plan);
  if (plan.top < 0) return RistrettoPoint::identity();

  ProjectivePoint acc{kFeZero, kFeOne, kFeOne};
  CompletedPoint t{};
  for (int j = plan.top; j >= 0; --j) {
    t = dbl(acc);
    const size_t end = plan.start[256 - j];
    for (size_t k = plan.start[255 - j]; k < end; ++k) {
      if (k + kStrausPrefetchDistance < plan.terms.size()) prefetch_term(plan.terms[k + kStrausPrefetchDistance]);
      const StrausTerm& term = plan.terms[k];
      const EdwardsPoint e = to_extended(t);
      if (term.fixed) {
        const auto& q = *static_cast<const AffineCached*>(term.entry);
        t = term.sign > 0 ? add(e, q) : sub(e, q);
      } else {
        const auto& q = *static_cast<const CachedPoint*>(term.entry);
        t = term.sign > 0 ? add(e, q) : sub(e, q);
      }
    }
    acc = to_projective(t);
  }
  return RistrettoPoint(to_extended(t));
}

// One bucket pass over every window of every fixed point (ShiftedBaseTable).
RistrettoPoint shifted_buckets_vartime(std::span<const Scalar> scalars,
                                       std::span<const ShiftedBaseTable* const> tables) {
  const MsmTallyScope tally([&](OpTally& t) { tally_shifted_vartime(t, scalars); });
  if (const MsmKernels* vector = active_msm_kernels()) return vector->shifted_buckets_vartime(scalars, tables);
  thread_local std::vector<int32_t> digits;
  thread_local std::vector<EdwardsPoint> buckets;
  shifted_digits(scalars, digits);
  buckets.assign(kShiftedBuckets, kIdentity);
  for (size_t i = 0; i < scalars.size(); ++i) {
    const int32_t* d = &digits[i * ShiftedBaseTable::kWindows];
    for (int w = 0; w < ShiftedBaseTable::kWindows; ++w) {
      const AffineCached& p = tables[i]->shifted(w);
      if (d[w] > 0)
        buckets[d[w] - 1] = to_extended(add(buckets[d[w] - 1], p));
      else if (d[w] < 0)
        buckets[-d[w] - 1] = to_extended(sub(buckets[-d[w] - 1], p));
    }
  }
  return RistrettoPoint(sum_of_bucket_multiples(buckets));
}

}  // namespace

bool shifted_tables_pay(size_t fixed_points) {
  return shifted_buckets_cost(fixed_points) <
         std::min(straus_fixed_cost(fixed_points, fixed_points), pippenger_cost(fixed_points));
}

RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const ShiftedBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t nf = std::min(fixed_scalars.size(), fixed_tables.size());
  const RistrettoPoint others = multiscalar_mul_vartime(scalars, points);
  if (nf == 0) return others;
  return shifted_buckets_vartime(fixed_scalars.first(nf), fixed_tables.first(nf)) + others;
}

RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t nf = std::min(fixed_scalars.size(), fixed_tables.size());
  const size_t nd = std::min(scalars.size(), points.size());
  // With many points the tables no longer stay in cache and the bucket method, which
  // touches each point once per window in order, often wins.
  if (nf + nd >= kMixedPippengerThreshold && !straus_cheaper(nf, nd))
    return detail::pippenger_mixed_vartime(fixed_scalars, fixed_tables, scalars, points);
  fixed_scalars = fixed_scalars.first(nf);
  fixed_tables = fixed_tables.first(nf);
  scalars = scalars.first(nd);
  points = points.first(nd);
  const MsmTallyScope tally([&](OpTally& t) { tally_straus_vartime(t, fixed_scalars, scalars); });
  if (const MsmKernels* vector = active_msm_kernels())
    return vector->straus_mixed_vartime(fixed_scalars, fixed_tables, scalars, points);
  return straus_mixed_vartime(fixed_scalars, fixed_tables, scalars, points);
}

}  // namespace bp
