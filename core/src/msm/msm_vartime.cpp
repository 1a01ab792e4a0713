// Variable-time multiscalar multiplication for public inputs.
#include <algorithm>
#include <vector>

#include "group/affine_points.hpp"
#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "msm/msm_kernels.hpp"
#include "msm/op_tally.hpp"
#include "msm/pippenger_digits.hpp"

namespace bp {

using namespace detail;

namespace {

constexpr size_t kPippengerThreshold = 190;  // below this Straus does less work

}  // namespace

namespace detail {

RistrettoPoint straus_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  return multiscalar_mul_vartime({}, std::span<const VartimeBaseTable* const>{}, scalars, points);
}

RistrettoPoint pippenger_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  return pippenger_mixed_vartime({}, {}, scalars, points);
}

RistrettoPoint pippenger_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t nf = std::min(fixed_scalars.size(), fixed_tables.size());
  const size_t nd = std::min(scalars.size(), points.size());
  fixed_scalars = fixed_scalars.first(nf);
  fixed_tables = fixed_tables.first(nf);
  scalars = scalars.first(nd);
  points = points.first(nd);
  const MsmTallyScope tally([&](OpTally& t) { tally_pippenger_vartime(t, fixed_scalars, scalars); });
  if (const MsmKernels* vector = active_msm_kernels())
    return vector->pippenger_mixed_vartime(fixed_scalars, fixed_tables, scalars, points);
  if (nf + nd == 0) return RistrettoPoint::identity();

  thread_local PippengerDigits plan;
  thread_local std::vector<EdwardsPoint> extended;
  thread_local std::vector<AffineCached> affine;
  thread_local std::vector<EdwardsPoint> buckets;
  pippenger_digits(fixed_scalars, scalars, plan);
  // The other points in affine form too: the conversion costs about seven multiplications
  // per point (one inversion shared), and each of the point's ~256/c bucket additions then
  // saves one.
  extended.resize(nd);
  for (size_t i = 0; i < nd; ++i) extended[i] = points[i].edwards();
  to_affine_cached(extended, affine);
  buckets.resize(plan.buckets);

  EdwardsPoint total = kIdentity;
  for (int w = plan.count - 1; w >= 0; --w) {
    std::fill(buckets.begin(), buckets.end(), kIdentity);
    // Fixed points enter in affine form (the first entry of their table): one multiplication
    // cheaper per addition, and smaller in cache.
    for (size_t i = 0; i < nf; ++i) {
      const int32_t d = plan.at(i, w);
      const AffineCached& p = fixed_tables[i]->odd_multiple(0);
      if (d > 0)
        buckets[d - 1] = to_extended(add(buckets[d - 1], p));
      else if (d < 0)
        buckets[-d - 1] = to_extended(sub(buckets[-d - 1], p));
    }
    for (size_t i = 0; i < nd; ++i) {
      const int32_t d = plan.at(nf + i, w);
      if (d > 0)
        buckets[d - 1] = to_extended(add(buckets[d - 1], affine[i]));
      else if (d < 0)
        buckets[-d - 1] = to_extended(sub(buckets[-d - 1], affine[i]));
    }
    const EdwardsPoint window_sum = sum_of_bucket_multiples(buckets);
    total = (w == plan.count - 1) ? window_sum : mul_by_pow2(total, plan.c) + window_sum;
  }
  return RistrettoPoint(total);
}

}  // namespace detail

RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t n = std::min(scalars.size(), points.size());
  return n < kPippengerThreshold ? straus_vartime(scalars, points) : pippenger_vartime(scalars, points);
}

}  // namespace bp
