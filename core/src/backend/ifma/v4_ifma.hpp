// Four 64-bit lanes on AVX-512 IFMA with AVX-512 VL (256-bit registers): the operations
// field52x4.inc is written in, one instruction each. v4_emulated.hpp has the same
// operations in plain C++, and the tests run the field, point and MSM code over those on
// every machine, so what only an IFMA CPU can run is this file's one-line wrappers.
//
// Functions carry the target attribute (never a compiler flag on a file), so nothing
// here can reach code that runs on CPUs without IFMA.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "backend/ifma/lane_masks.hpp"

#define BP_IFMA __attribute__((target("avx2,avx512f,avx512vl,avx512ifma")))
#define BP_IFMA_INLINE inline __attribute__((always_inline, target("avx2,avx512f,avx512vl,avx512ifma")))

namespace bp::detail::ifma {

struct alignas(32) V {  // explicit: without -mavx GCC aligns __m256i to 16 only
  __m256i v;
};

BP_IFMA_INLINE V v_splat(uint64_t x) { return {_mm256_set1_epi64x(static_cast<long long>(x))}; }
BP_IFMA_INLINE V v_set(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  return {_mm256_set_epi64x(static_cast<long long>(l3), static_cast<long long>(l2), static_cast<long long>(l1),
                            static_cast<long long>(l0))};
}
BP_IFMA_INLINE void v_store(const V& a, uint64_t out[4]) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), a.v); }

BP_IFMA_INLINE V v_add(const V& a, const V& b) { return {_mm256_add_epi64(a.v, b.v)}; }
BP_IFMA_INLINE V v_sub(const V& a, const V& b) { return {_mm256_sub_epi64(a.v, b.v)}; }
BP_IFMA_INLINE V v_and(const V& a, const V& b) { return {_mm256_and_si256(a.v, b.v)}; }
template <int N>
BP_IFMA_INLINE V v_shr(const V& a) {
  return {_mm256_srli_epi64(a.v, N)};
}
template <int N>
BP_IFMA_INLINE V v_shl(const V& a) {
  return {_mm256_slli_epi64(a.v, N)};
}

// acc + the low 52 bits of b·c, and acc + bits 52..103 of b·c, where b and c are read as
// their low 52 bits.
BP_IFMA_INLINE V v_madd52lo(const V& acc, const V& b, const V& c) { return {_mm256_madd52lo_epu64(acc.v, b.v, c.v)}; }
BP_IFMA_INLINE V v_madd52hi(const V& acc, const V& b, const V& c) { return {_mm256_madd52hi_epu64(acc.v, b.v, c.v)}; }

template <int Order>
BP_IFMA_INLINE V v_permute(const V& a) {
  return {_mm256_permute4x64_epi64(a.v, Order)};
}

// The lanes in Set from b, the others from a.
template <int Set>
BP_IFMA_INLINE V v_blend(const V& a, const V& b) {
  constexpr int dwords =
      ((Set & 1) ? 0x03 : 0) | ((Set & 2) ? 0x0c : 0) | ((Set & 4) ? 0x30 : 0) | ((Set & 8) ? 0xc0 : 0);
  return {_mm256_blend_epi32(a.v, b.v, dwords)};
}

}  // namespace bp::detail::ifma
