// Two four-lane values side by side in one 512-bit register (lanes 0-3 and 4-7), each
// operation of v4_ifma.hpp done on both halves at once: splat, set and the lane
// arguments of permute and blend act within each half. The IFMA field and point code
// (field52x4.inc, edwards52x4.inc) compiled over these adds two independent points in the
// instructions of one, which pays where the CPU executes a 512-bit instruction as fast as
// a 256-bit one (Zen 5; not Zen 4, which splits it in two). v4x2_emulated.hpp has the same
// operations for the tests.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "backend/ifma/v4_ifma.hpp"

namespace bp::detail::ifma_x2 {

using Half = ifma::V;

struct alignas(64) V {
  __m512i v;
};

BP_IFMA_INLINE V v_splat(uint64_t x) { return {_mm512_set1_epi64(static_cast<long long>(x))}; }
// The same four lanes in both halves (constants and loaded points start so).
BP_IFMA_INLINE V v_set(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  const auto s = [](uint64_t x) { return static_cast<long long>(x); };
  return {_mm512_set_epi64(s(l3), s(l2), s(l1), s(l0), s(l3), s(l2), s(l1), s(l0))};
}
// The first half only (the pair code reads its halves with v_low and v_high instead).
BP_IFMA_INLINE void v_store(const V& a, uint64_t out[4]) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_maskz_extracti64x4_epi64(0xf, a.v, 0));
}

BP_IFMA_INLINE V v_add(const V& a, const V& b) { return {_mm512_add_epi64(a.v, b.v)}; }
BP_IFMA_INLINE V v_sub(const V& a, const V& b) { return {_mm512_sub_epi64(a.v, b.v)}; }
BP_IFMA_INLINE V v_and(const V& a, const V& b) { return {_mm512_and_si512(a.v, b.v)}; }
// Zero-masked shifts: GCC 12's unmasked ones read an undefined register (v8_ifma.hpp).
template <int N>
BP_IFMA_INLINE V v_shr(const V& a) {
  return {_mm512_maskz_srli_epi64(0xff, a.v, N)};
}
template <int N>
BP_IFMA_INLINE V v_shl(const V& a) {
  return {_mm512_maskz_slli_epi64(0xff, a.v, N)};
}

BP_IFMA_INLINE V v_madd52lo(const V& acc, const V& b, const V& c) { return {_mm512_madd52lo_epu64(acc.v, b.v, c.v)}; }
BP_IFMA_INLINE V v_madd52hi(const V& acc, const V& b, const V& c) { return {_mm512_madd52hi_epu64(acc.v, b.v, c.v)}; }

// vpermq with an immediate permutes within each 256-bit half: Order as in v4_ifma.hpp.
template <int Order>
BP_IFMA_INLINE V v_permute(const V& a) {
  return {_mm512_maskz_permutex_epi64(0xff, a.v, Order)};
}

template <int Set>
BP_IFMA_INLINE V v_blend(const V& a, const V& b) {
  return {_mm512_mask_blend_epi64(static_cast<__mmask8>(Set | (Set << 4)), a.v, b.v)};
}

// The zero-masked forms again: GCC 12's plain insert, extract and casts read an undefined
// register that -Wmaybe-uninitialized reports.
BP_IFMA_INLINE V v_join(const Half& low, const Half& high) {
  const __m512i low_only = _mm512_maskz_inserti64x4(0xff, _mm512_setzero_si512(), low.v, 0);
  return {_mm512_maskz_inserti64x4(0xff, low_only, high.v, 1)};
}
BP_IFMA_INLINE Half v_low(const V& a) { return {_mm512_maskz_extracti64x4_epi64(0xf, a.v, 0)}; }
BP_IFMA_INLINE Half v_high(const V& a) { return {_mm512_maskz_extracti64x4_epi64(0xf, a.v, 1)}; }

}  // namespace bp::detail::ifma_x2
