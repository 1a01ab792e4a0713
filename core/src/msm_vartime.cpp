// Variable-time multiscalar multiplication for public inputs.
#include <algorithm>
#include <vector>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "scalar_recoding.hpp"

namespace bp {

using namespace detail;

namespace {

constexpr size_t kPippengerThreshold = 190;  // below this Straus does less work

}  // namespace

namespace detail {

RistrettoPoint straus_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  return multiscalar_mul_vartime({}, {}, scalars, points);
}

RistrettoPoint pippenger_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  return pippenger_vartime_mixed({}, {}, scalars, points);
}

RistrettoPoint pippenger_vartime_mixed(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t nf = std::min(fixed_scalars.size(), fixed_tables.size());
  const size_t nd = std::min(scalars.size(), points.size());
  const size_t n = nf + nd;
  // Window width grows roughly with log2(n).
  const int c = n < 500 ? 6 : n < 800 ? 7 : n < 3000 ? 8 : n < 10000 ? 9 : 10;
  const int max_digits = (256 + c - 1) / c + 1;
  const size_t buckets_count = size_t{1} << (c - 1);

  thread_local std::vector<int32_t> digits;
  thread_local std::vector<CachedPoint> cached;
  thread_local std::vector<EdwardsPoint> buckets;
  digits.resize(n * max_digits);
  cached.resize(nd);
  buckets.resize(buckets_count);
  int count = 0;
  for (size_t i = 0; i < nf; ++i) count = to_signed_radix_vartime(&digits[i * max_digits], fixed_scalars[i], c);
  for (size_t i = 0; i < nd; ++i) {
    count = to_signed_radix_vartime(&digits[(nf + i) * max_digits], scalars[i], c);
    cached[i] = to_cached(points[i].edwards());
  }
  if (n == 0) return RistrettoPoint::identity();

  EdwardsPoint total = kIdentity;
  for (int w = count - 1; w >= 0; --w) {
    std::fill(buckets.begin(), buckets.end(), kIdentity);
    // Fixed points enter in affine form (the first entry of their table): one multiplication
    // cheaper per addition, and smaller in cache.
    for (size_t i = 0; i < nf; ++i) {
      const int32_t d = digits[i * max_digits + w];
      const AffineCached& p = fixed_tables[i]->odd_multiple(0);
      if (d > 0)
        buckets[d - 1] = to_extended(add(buckets[d - 1], p));
      else if (d < 0)
        buckets[-d - 1] = to_extended(sub(buckets[-d - 1], p));
    }
    for (size_t i = 0; i < nd; ++i) {
      const int32_t d = digits[(nf + i) * max_digits + w];
      if (d > 0)
        buckets[d - 1] = to_extended(add(buckets[d - 1], cached[i]));
      else if (d < 0)
        buckets[-d - 1] = to_extended(sub(buckets[-d - 1], cached[i]));
    }
    // sum_k k·bucket[k-1] as a running sum of suffix sums.
    EdwardsPoint running = buckets[buckets_count - 1];
    EdwardsPoint window_sum = running;
    for (size_t k = buckets_count - 1; k-- > 0;) {
      running = running + buckets[k];
      window_sum = window_sum + running;
    }
    total = (w == count - 1) ? window_sum : mul_by_pow2(total, c) + window_sum;
  }
  return RistrettoPoint(total);
}

}  // namespace detail

RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t n = std::min(scalars.size(), points.size());
  return n < kPippengerThreshold ? straus_vartime(scalars, points) : pippenger_vartime(scalars, points);
}

}  // namespace bp
