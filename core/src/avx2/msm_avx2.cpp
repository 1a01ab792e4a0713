// Multiscalar multiplication on the AVX2 backend: the same algorithms and digit plans as
// the portable code (straus_terms.hpp, pippenger_digits.hpp, ct_lookup.hpp), with every
// point operation done four lanes at a time (edwards4.hpp).
#include "avx2/msm_avx2.hpp"

#include <sodium.h>

#include <cstring>
#include <vector>

#include "avx2/edwards4.hpp"
#include "ct_lookup.hpp"
#include "pippenger_digits.hpp"
#include "scalar_recoding.hpp"
#include "straus_terms.hpp"

namespace bp::detail::avx2 {

namespace {

struct OddMultiples4 {
  Cached4 odd[8];      // P, 3P, ..., 15P
  Cached4 odd_neg[8];  // -P, -3P, ..., -15P
};

BP_AVX2 void odd_multiples4(const EdwardsPoint& p, OddMultiples4& out) {
  const Extended4 p4 = to_extended4(p);
  const Cached4 p2 = to_cached4(dbl(p4));
  Extended4 acc = p4;
  out.odd[0] = to_cached4(acc);
  for (int k = 1; k < 8; ++k) {
    add_to(acc, acc, p2);
    out.odd[k] = to_cached4(acc);
  }
  for (int k = 0; k < 8; ++k) out.odd_neg[k] = neg(out.odd[k]);
}

// |digit|·P with the sign applied, from entries[k] = (k+1)·P: ct_select (ct_lookup.hpp)
// with the eight candidate entries read as AVX2 words and chosen by masks, four times fewer
// instructions than limb-by-limb conditional moves. Every entry is read whatever the digit.
BP_AVX2 Cached4 ct_select4(const AffineCached* entries, int8_t digit) {
  static_assert(sizeof(AffineCached) == 15 * sizeof(uint64_t), "an affine entry is fifteen words");
  const uint64_t sign_mask = 0 - static_cast<uint64_t>(static_cast<uint8_t>(digit) >> 7);
  const int64_t abs = (static_cast<int64_t>(digit) ^ static_cast<int64_t>(sign_mask)) - static_cast<int64_t>(sign_mask);
  const __m256i first_three = _mm256_set_epi64x(0, -1, -1, -1);  // the last word group has three words
  // The identity: y+x = 1, y-x = 1, 2dxy = 0.
  __m256i w0 = _mm256_set_epi64x(0, 0, 0, 1), w1 = _mm256_set_epi64x(0, 0, 1, 0), w2 = _mm256_setzero_si256(),
          w3 = _mm256_setzero_si256();
  for (int k = 1; k <= 8; ++k) {
    const uint64_t diff = static_cast<uint64_t>(abs ^ k);
    const __m256i take = _mm256_set1_epi64x(static_cast<long long>(((diff | (0 - diff)) >> 63) - 1));
    const auto* words = reinterpret_cast<const long long*>(&entries[k - 1]);
    w0 = _mm256_blendv_epi8(w0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words)), take);
    w1 = _mm256_blendv_epi8(w1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4)), take);
    w2 = _mm256_blendv_epi8(w2, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 8)), take);
    w3 = _mm256_blendv_epi8(w3, _mm256_maskload_epi64(words + 12, first_three), take);
  }
  alignas(32) uint64_t chosen[16];
  _mm256_store_si256(reinterpret_cast<__m256i*>(chosen), w0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(chosen + 4), w1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(chosen + 8), w2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(chosen + 12), w3);
  AffineCached r;
  std::memcpy(&r, chosen, sizeof r);
  cneg(r, sign_mask);
  return to_cached4(r);
}

}  // namespace

BP_AVX2 RistrettoPoint straus_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                            std::span<const VartimeBaseTable* const> fixed_tables,
                                            std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  thread_local std::vector<OddMultiples4> dynamic;
  thread_local StrausTerms plan;
  dynamic.resize(points.size());
  for (size_t i = 0; i < points.size(); ++i) odd_multiples4(points[i].edwards(), dynamic[i]);
  straus_terms(fixed_scalars, fixed_tables, scalars, [&](size_t i, int d) { return d > 0 ? &dynamic[i].odd[d / 2] : &dynamic[i].odd_neg[-d / 2]; }, plan);
  if (plan.top < 0) return RistrettoPoint::identity();

  Extended4 acc = identity4();
  for (int j = plan.top; j >= 0; --j) {
    if (j != plan.top) dbl_to(acc, acc);
    const size_t end = plan.start[256 - j];
    for (size_t k = plan.start[255 - j]; k < end; ++k) {
      if (k + kStrausPrefetchDistance < plan.terms.size()) prefetch_term(plan.terms[k + kStrausPrefetchDistance]);
      const StrausTerm& term = plan.terms[k];
      // One addition site for all three kinds of term (the code stays in the micro-op
      // cache); if/else, not a conditional expression, so only one conversion runs.
      Cached4 converted;
      const Cached4* q = &converted;
      if (!term.fixed)
        q = static_cast<const Cached4*>(term.entry);  // the signed multiple itself
      else if (term.sign > 0)
        converted = to_cached4(*static_cast<const AffineCached*>(term.entry));
      else
        converted = to_cached4_negated(*static_cast<const AffineCached*>(term.entry));
      add_to(acc, acc, *q);
    }
  }
  return RistrettoPoint(to_edwards(acc));
}

BP_AVX2 RistrettoPoint pippenger_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                               std::span<const VartimeBaseTable* const> fixed_tables,
                                               std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t nf = fixed_scalars.size(), nd = scalars.size();
  if (nf + nd == 0) return RistrettoPoint::identity();
  thread_local PippengerDigits plan;
  thread_local std::vector<Cached4> cached, cached_neg;
  thread_local std::vector<Extended4> buckets;
  pippenger_digits(fixed_scalars, scalars, plan);
  cached.resize(nf + nd);
  cached_neg.resize(nf + nd);
  for (size_t i = 0; i < nf; ++i) {
    cached[i] = to_cached4(fixed_tables[i]->odd_multiple(0));
    cached_neg[i] = to_cached4_negated(fixed_tables[i]->odd_multiple(0));
  }
  for (size_t i = 0; i < nd; ++i) {
    cached[nf + i] = to_cached4(to_extended4(points[i].edwards()));
    cached_neg[nf + i] = neg(cached[nf + i]);
  }
  buckets.resize(plan.buckets);

  const Extended4 identity = identity4();
  Extended4 total = identity;
  for (int w = plan.count - 1; w >= 0; --w) {
    for (auto& b : buckets) b = identity;
    for (size_t i = 0; i < nf + nd; ++i) {
      const int32_t d = plan.at(i, w);
      if (d > 0)
        add_to(buckets[d - 1], buckets[d - 1], cached[i]);
      else if (d < 0)
        add_to(buckets[-d - 1], buckets[-d - 1], cached_neg[i]);
    }
    // sum_k k·bucket[k-1] as a running sum of suffix sums.
    Extended4 running = buckets[plan.buckets - 1];
    Extended4 window_sum = running;
    for (size_t k = plan.buckets - 1; k-- > 0;) {
      add_to(running, running, to_cached4(buckets[k]));
      add_to(window_sum, window_sum, to_cached4(running));
    }
    if (w == plan.count - 1) {
      total = window_sum;
    } else {
      mul_by_pow2_in_place(total, plan.c);
      add_to(total, total, to_cached4(window_sum));
    }
  }
  return RistrettoPoint(to_edwards(total));
}

BP_AVX2 RistrettoPoint multiscalar_mul_ct(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables) {
  const size_t n = scalars.size();
  auto& digits = ct_digits(scalars);
  Extended4 acc = identity4();
  for (int j = 63; j >= 0; --j) {
    if (j != 63) mul_by_pow2_in_place(acc, 4);
    for (size_t i = 0; i < n; ++i)
      add_to(acc, acc, ct_select4(&tables[i]->multiple(0), digits[i * 64 + j]));
  }
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(to_edwards(acc));
}

BP_AVX2 RistrettoPoint multiscalar_mul_ct(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t n = scalars.size();
  const auto& tables = ct_lookup_tables(points);
  auto& digits = ct_digits(scalars);
  Extended4 acc = identity4();
  for (int j = 63; j >= 0; --j) {
    if (j != 63) mul_by_pow2_in_place(acc, 4);
    for (size_t i = 0; i < n; ++i)
      add_to(acc, acc, to_cached4(ct_select(tables[i].multiples, kCachedIdentity, digits[i * 64 + j])));
  }
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(to_edwards(acc));
}

}  // namespace bp::detail::avx2
