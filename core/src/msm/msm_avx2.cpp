// Multiscalar multiplication on the AVX2 backend: the shared four-lane algorithms
// (msm_four_lanes.inc) over the AVX2 point formulas (edwards4.hpp).
#include <sodium.h>

#include <cstring>
#include <vector>

#include "backend/avx2/edwards4.hpp"
#include "msm/ct_tables.hpp"
#include "msm/msm_kernels.hpp"
#include "msm/pippenger_digits.hpp"
#include "arith/scalar_recoding.hpp"
#include "msm/straus_terms.hpp"

namespace bp::detail::avx2 {

namespace {

// |digit|·P with the sign applied, from entries[k] = (k+1)·P: ct_select (arith/ct_select.hpp)
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

#define BP_LANES_FN BP_AVX2
#include "msm/msm_four_lanes.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::avx2
