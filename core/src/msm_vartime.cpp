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
  const size_t n = std::min(scalars.size(), points.size());
  // Window width grows roughly with log2(n); these break-even points were measured.
  const int c = n < 500 ? 6 : n < 800 ? 7 : n < 3000 ? 8 : n < 10000 ? 9 : 10;
  const int max_digits = (256 + c - 1) / c + 1;
  const size_t buckets_count = size_t{1} << (c - 1);

  thread_local std::vector<int32_t> digits;
  thread_local std::vector<CachedPoint> cached;
  thread_local std::vector<EdwardsPoint> buckets;
  digits.resize(n * max_digits);
  cached.resize(n);
  buckets.resize(buckets_count);
  int count = 0;
  for (size_t i = 0; i < n; ++i) {
    count = to_signed_radix_vartime(&digits[i * max_digits], scalars[i], c);
    cached[i] = to_cached(points[i].edwards());
  }

  EdwardsPoint total = kIdentity;
  for (int w = count - 1; w >= 0; --w) {
    std::fill(buckets.begin(), buckets.end(), kIdentity);
    for (size_t i = 0; i < n; ++i) {
      const int32_t d = digits[i * max_digits + w];
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
