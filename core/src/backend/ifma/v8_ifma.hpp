// Eight 64-bit lanes on AVX-512 IFMA (512-bit registers): the operations field52x8.inc is
// written in, one instruction each. v8_emulated.hpp has them in plain C++ for the tests.
// Functions carry the target attribute, as in v4_ifma.hpp, never a flag on a file.
#pragma once

#include <immintrin.h>

#include <cstdint>

#define BP_IFMA512 __attribute__((target("avx512f,avx512ifma")))
#define BP_IFMA512_INLINE inline __attribute__((always_inline, target("avx512f,avx512ifma")))

namespace bp::detail::ifma {

struct alignas(64) V8 {
  __m512i v;
};

BP_IFMA512_INLINE V8 v8_splat(uint64_t x) { return {_mm512_set1_epi64(static_cast<long long>(x))}; }
BP_IFMA512_INLINE V8 v8_load(const uint64_t in[8]) { return {_mm512_loadu_si512(in)}; }
BP_IFMA512_INLINE void v8_store(const V8& a, uint64_t out[8]) { _mm512_storeu_si512(out, a.v); }

BP_IFMA512_INLINE V8 v8_add(const V8& a, const V8& b) { return {_mm512_add_epi64(a.v, b.v)}; }
BP_IFMA512_INLINE V8 v8_sub(const V8& a, const V8& b) { return {_mm512_sub_epi64(a.v, b.v)}; }
BP_IFMA512_INLINE V8 v8_and(const V8& a, const V8& b) { return {_mm512_and_si512(a.v, b.v)}; }
// The zero-masked shifts: GCC 12's unmasked ones read an undefined register that
// -Wuninitialized reports; with every lane selected they are the same instruction.
template <int N>
BP_IFMA512_INLINE V8 v8_shr(const V8& a) {
  return {_mm512_maskz_srli_epi64(0xff, a.v, N)};
}
template <int N>
BP_IFMA512_INLINE V8 v8_shl(const V8& a) {
  return {_mm512_maskz_slli_epi64(0xff, a.v, N)};
}

// acc + the low 52 bits of b·c, and acc + bits 52..103 of b·c (b, c read as 52 bits).
BP_IFMA512_INLINE V8 v8_madd52lo(const V8& acc, const V8& b, const V8& c) {
  return {_mm512_madd52lo_epu64(acc.v, b.v, c.v)};
}
BP_IFMA512_INLINE V8 v8_madd52hi(const V8& acc, const V8& b, const V8& c) {
  return {_mm512_madd52hi_epu64(acc.v, b.v, c.v)};
}

}  // namespace bp::detail::ifma
