// Four elements of GF(2^255 - 19) side by side, one in each 64-bit lane of AVX2 registers.
//
// AVX2 multiplies 32 × 32 → 64 bits (vpmuludq), so an element is ten limbs in radix
// 2^25.5 (26, 25, 26, 25, ... bits, limb i weighing 2^ceil(25.5·i)), limb i of all four
// lanes in one register. One fe4_mul does four independent multiplications in about the
// time of one portable fe_mul (31 against 33 ns here); the point formulas in edwards4.hpp
// put the four coordinates of one point in the four lanes.
//
// Bounds: fe4_mul needs limbs below 2^27.7 (19 times a limb must fit in 32 bits, and ten
// products must fit in 64 bits); fe4_carry brings any limbs below 2^63 down to 26/25 bits
// plus at most 2^17. "Carried" below means that. The sum of two carried elements, or
// carried + 2p - carried, is still a valid fe4_mul input (below 2^27.6), which is what
// lets the point formulas skip a carry after each addition; fe4_sub (4p bias) carries.
//
// Every function is constant time; none is called unless the CPU has AVX2 (the target
// attribute, not a compiler flag, so nothing in this header leaks AVX2 code into
// functions shared with the portable path).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "bp/detail/field.hpp"

#define BP_AVX2 __attribute__((target("avx2")))
#define BP_AVX2_INLINE inline __attribute__((always_inline, target("avx2")))
// The multiplications stay out of line: a point addition inlining two of them is larger
// than the CPU's micro-op cache, and the MSM loops then run at instruction-decode speed.
#define BP_AVX2_OUTLINE inline __attribute__((noinline, target("avx2")))

namespace bp::detail::avx2 {

struct alignas(32) Fe4 {  // explicit: without -mavx GCC aligns __m256i to 16 only
  __m256i l[10];
};

inline constexpr uint64_t kMask26 = (uint64_t{1} << 26) - 1;

BP_AVX2_INLINE __m256i splat(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }

// Lane selection masks for _mm256_blend_epi32 (two 32-bit halves per 64-bit lane).
constexpr int lanes(bool l0, bool l1, bool l2, bool l3) {
  return (l0 ? 0x03 : 0) | (l1 ? 0x0c : 0) | (l2 ? 0x30 : 0) | (l3 ? 0xc0 : 0);
}
// Immediate for _mm256_permute4x64_epi64: result lane i takes input lane p_i.
constexpr int order(int p0, int p1, int p2, int p3) { return p0 | (p1 << 2) | (p2 << 4) | (p3 << 6); }

BP_AVX2_INLINE __m256i times19(__m256i x) {
  return _mm256_add_epi64(x, _mm256_add_epi64(_mm256_slli_epi64(x, 1), _mm256_slli_epi64(x, 4)));
}

// Moves the bits of limb K above its width into limb K+1 (limb 9: into limb 0, times 19).
template <int K>
BP_AVX2_INLINE void carry_step(__m256i* c) {
  constexpr int width = (K & 1) ? 25 : 26;
  const __m256i carry = _mm256_srli_epi64(c[K], width);
  c[K] = _mm256_and_si256(c[K], splat((uint64_t{1} << width) - 1));
  if constexpr (K == 9)
    c[0] = _mm256_add_epi64(c[0], times19(carry));
  else
    c[K + 1] = _mm256_add_epi64(c[K + 1], carry);
}

// Carries every limb into the next, two chains interleaved as in ref10: any limbs below
// 2^63 come out below 2^26 (even) and 2^25 (odd), except limbs 1 and 5, which may exceed
// 2^25 by 2^17 and 2^12. (A fully parallel two-pass carry has a shorter dependency chain
// but twice the instructions; the point formulas run out of instruction throughput long
// before latency, and it measured slower.)
BP_AVX2_INLINE void fe4_carry(Fe4& f) {
  __m256i* c = f.l;
  carry_step<0>(c);
  carry_step<4>(c);
  carry_step<1>(c);
  carry_step<5>(c);
  carry_step<2>(c);
  carry_step<6>(c);
  carry_step<3>(c);
  carry_step<7>(c);
  carry_step<4>(c);
  carry_step<8>(c);
  carry_step<9>(c);
  carry_step<0>(c);
}

// Loads a, b, c, d (weakly reduced radix-2^51 limbs, below 2^52) into lanes 0..3.
BP_AVX2_INLINE Fe4 fe4_from_lanes(const Fe& a, const Fe& b, const Fe& c, const Fe& d) {
  Fe4 r;
  const __m256i m26 = splat(kMask26);
  for (int k = 0; k < 5; ++k) {
    const __m256i v = _mm256_set_epi64x(static_cast<long long>(d.v[k]), static_cast<long long>(c.v[k]),
                                        static_cast<long long>(b.v[k]), static_cast<long long>(a.v[k]));
    r.l[2 * k] = _mm256_and_si256(v, m26);
    r.l[2 * k + 1] = _mm256_srli_epi64(v, 26);
  }
  return r;
}

BP_AVX2_INLINE Fe4 fe4_splat(const Fe& a) { return fe4_from_lanes(a, a, a, a); }

// The four lanes back as radix-2^51 elements (weakly reduced).
BP_AVX2_INLINE void fe4_to_lanes(const Fe4& f, Fe out[4]) {
  alignas(32) uint64_t limbs[10][4];
  for (int i = 0; i < 10; ++i) _mm256_store_si256(reinterpret_cast<__m256i*>(limbs[i]), f.l[i]);
  for (int lane = 0; lane < 4; ++lane) {
    Fe r;
    for (int k = 0; k < 5; ++k) r.v[k] = limbs[2 * k][lane] + (limbs[2 * k + 1][lane] << 26);
    out[lane] = fe_carry(fe_carry(r));
  }
}

BP_AVX2_INLINE Fe4 fe4_add(const Fe4& a, const Fe4& b) {
  Fe4 r;
  for (int i = 0; i < 10; ++i) r.l[i] = _mm256_add_epi64(a.l[i], b.l[i]);
  return r;
}

// 4p and 2p in radix 2^25.5: added before a subtraction so that no limb goes negative
// (4p: for subtrahends below 2^27; 2p: for carried subtrahends).
BP_AVX2_INLINE __m256i four_p_limb(int i) { return splat(i == 0 ? 0xfffffb4 : (i & 1) ? 0x7fffffc : 0xffffffc); }

BP_AVX2_INLINE __m256i two_p_limb(int i) { return splat(i == 0 ? 0x7ffffda : (i & 1) ? 0x3fffffe : 0x7fffffe); }

BP_AVX2_INLINE Fe4 fe4_sub(const Fe4& a, const Fe4& b) {
  Fe4 r;
  for (int i = 0; i < 10; ++i) r.l[i] = _mm256_sub_epi64(_mm256_add_epi64(a.l[i], four_p_limb(i)), b.l[i]);
  fe4_carry(r);
  return r;
}

// Each output lane i is input lane p_i. Swapping neighbours stays inside each 128-bit half
// (vpshufd: one cycle, two per cycle); other orders cross halves (vpermq: three cycles, one
// per cycle), which made permutations a seventh of a point addition.
template <int Order>
BP_AVX2_INLINE Fe4 fe4_permute(const Fe4& a) {
  Fe4 r;
  for (int i = 0; i < 10; ++i) {
    if constexpr (Order == order(1, 0, 3, 2))
      r.l[i] = _mm256_shuffle_epi32(a.l[i], 0x4e);
    else
      r.l[i] = _mm256_permute4x64_epi64(a.l[i], Order);
  }
  return r;
}

// Lanes chosen by Mask from b, the others from a.
template <int Mask>
BP_AVX2_INLINE Fe4 fe4_blend(const Fe4& a, const Fe4& b) {
  Fe4 r;
  for (int i = 0; i < 10; ++i) r.l[i] = _mm256_blend_epi32(a.l[i], b.l[i], Mask);
  return r;
}

// Negates the lanes chosen by Mask (carried output).
template <int Mask>
BP_AVX2_INLINE Fe4 fe4_negate_lanes(const Fe4& a) {
  Fe4 r;
  for (int i = 0; i < 10; ++i) r.l[i] = _mm256_blend_epi32(a.l[i], _mm256_sub_epi64(four_p_limb(i), a.l[i]), Mask);
  fe4_carry(r);
  return r;
}

// The ten output sums, kept in ymm0-ymm9 by the multiplication and squaring below, stored
// to r.
#define BP_FE4_STORE_SUMS         \
  "vmovdqa %%ymm0, 0(%[r])\n\t"   \
  "vmovdqa %%ymm1, 32(%[r])\n\t"  \
  "vmovdqa %%ymm2, 64(%[r])\n\t"  \
  "vmovdqa %%ymm3, 96(%[r])\n\t"  \
  "vmovdqa %%ymm4, 128(%[r])\n\t" \
  "vmovdqa %%ymm5, 160(%[r])\n\t" \
  "vmovdqa %%ymm6, 192(%[r])\n\t" \
  "vmovdqa %%ymm7, 224(%[r])\n\t" \
  "vmovdqa %%ymm8, 256(%[r])\n\t" \
  "vmovdqa %%ymm9, 288(%[r])\n\t"

// Four products at once, lane by lane. Inputs below 2^27.7 per limb.
//   c_k = sum_{i+j=k} a_i·b_j·(2 when i, j both odd) + 19·sum_{i+j=k+10} (the same)
// since limb offsets add up to one bit short when both are odd, and 2^255 = 19.
//
// Written in assembly, row by row (a_i, or 2a_i, against every limb of b or 19b, which are
// read as memory operands): the ten sums stay in ymm0-9 and nothing spills. Compiled from
// intrinsics, both GCC 12 and clang 14 schedule all hundred products first and spill them
// (440-500 instructions instead of 240), which made this the slowest part of the backend.
// Every instruction is data-independent in time. The rows were written out by a loop over
// i and k with j = k - i (wrapping to 19b), not by hand.
// r may be a or b: every input is read before the first store.
BP_AVX2_OUTLINE void fe4_mul_to(Fe4& r, const Fe4& a, const Fe4& b) {
  alignas(32) __m256i b19[10];
  // One vpmuludq instead of two shifts and two additions: limbs are below 2^32 here.
  for (int j = 0; j < 10; ++j) b19[j] = _mm256_mul_epu32(b.l[j], splat(19));
  asm volatile(
      // a_0
      "vmovdqa 0(%[a]), %%ymm10\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm0\n\t"
      "vpmuludq 32(%[b]), %%ymm10, %%ymm1\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm2\n\t"
      "vpmuludq 96(%[b]), %%ymm10, %%ymm3\n\t"
      "vpmuludq 128(%[b]), %%ymm10, %%ymm4\n\t"
      "vpmuludq 160(%[b]), %%ymm10, %%ymm5\n\t"
      "vpmuludq 192(%[b]), %%ymm10, %%ymm6\n\t"
      "vpmuludq 224(%[b]), %%ymm10, %%ymm7\n\t"
      "vpmuludq 256(%[b]), %%ymm10, %%ymm8\n\t"
      "vpmuludq 288(%[b]), %%ymm10, %%ymm9\n\t"
      // a_1
      "vmovdqa 32(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 288(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 32(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 96(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 128(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 160(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 192(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 224(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 256(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_2
      "vmovdqa 64(%[a]), %%ymm10\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 288(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 32(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 96(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 128(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 160(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 192(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 224(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_3
      "vmovdqa 96(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 224(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 288(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 32(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 96(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 128(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 160(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 192(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_4
      "vmovdqa 128(%[a]), %%ymm10\n\t"
      "vpmuludq 192(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 224(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 288(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 32(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 96(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 128(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 160(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_5
      "vmovdqa 160(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 160(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 192(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 224(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 288(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 32(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 96(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 128(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_6
      "vmovdqa 192(%[a]), %%ymm10\n\t"
      "vpmuludq 128(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 160(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 192(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 224(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 288(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 32(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 96(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_7
      "vmovdqa 224(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 96(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 128(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 160(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 192(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 224(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 288(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 32(%[b]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 64(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_8
      "vmovdqa 256(%[a]), %%ymm10\n\t"
      "vpmuludq 64(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 96(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 128(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 160(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 192(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 224(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 288(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 32(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t"
      // a_9
      "vmovdqa 288(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 32(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmuludq 64(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmuludq 96(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmuludq 128(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmuludq 160(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmuludq 192(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmuludq 224(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmuludq 256(%[b19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmuludq 288(%[b19]), %%ymm11, %%ymm12\n\t"
      "vpaddq %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmuludq 0(%[b]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm9, %%ymm9\n\t" BP_FE4_STORE_SUMS
      :
      : [a] "r"(a.l), [b] "r"(b.l), [b19] "r"(b19), [r] "r"(r.l)
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "memory");
  fe4_carry(r);
}

// a², each product a_i·a_j (i < j) once and doubled: 55 multiplications instead of 100.
// Inputs below 2^27 (six terms of up to 4a_i·19a_j per output limb must fit in 64 bits).
// Assembly for the same reason as fe4_mul; rows written out by a loop over i <= j.
BP_AVX2_OUTLINE void fe4_sq_to(Fe4& r, const Fe4& a) {
  alignas(32) __m256i a19[10];
  for (int j = 0; j < 10; ++j) a19[j] = _mm256_mul_epu32(a.l[j], splat(19));
  asm volatile(
      // a_0
      "vmovdqa 0(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 0(%[a]), %%ymm10, %%ymm0\n\t"
      "vpmuludq 32(%[a]), %%ymm11, %%ymm1\n\t"
      "vpmuludq 64(%[a]), %%ymm11, %%ymm2\n\t"
      "vpmuludq 96(%[a]), %%ymm11, %%ymm3\n\t"
      "vpmuludq 128(%[a]), %%ymm11, %%ymm4\n\t"
      "vpmuludq 160(%[a]), %%ymm11, %%ymm5\n\t"
      "vpmuludq 192(%[a]), %%ymm11, %%ymm6\n\t"
      "vpmuludq 224(%[a]), %%ymm11, %%ymm7\n\t"
      "vpmuludq 256(%[a]), %%ymm11, %%ymm8\n\t"
      "vpmuludq 288(%[a]), %%ymm11, %%ymm9\n\t"
      // a_1
      "vmovdqa 32(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpaddq %%ymm11, %%ymm11, %%ymm12\n\t"
      "vpmuludq 32(%[a]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm2, %%ymm2\n\t"
      "vpmuludq 64(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm3, %%ymm3\n\t"
      "vpmuludq 96(%[a]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm4, %%ymm4\n\t"
      "vpmuludq 128(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm5, %%ymm5\n\t"
      "vpmuludq 160(%[a]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm6, %%ymm6\n\t"
      "vpmuludq 192(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm7, %%ymm7\n\t"
      "vpmuludq 224(%[a]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm8, %%ymm8\n\t"
      "vpmuludq 256(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm9, %%ymm9\n\t"
      "vpmuludq 288(%[a19]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm0, %%ymm0\n\t"
      // a_2
      "vmovdqa 64(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 64(%[a]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm4, %%ymm4\n\t"
      "vpmuludq 96(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm5, %%ymm5\n\t"
      "vpmuludq 128(%[a]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm6, %%ymm6\n\t"
      "vpmuludq 160(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm7, %%ymm7\n\t"
      "vpmuludq 192(%[a]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm8, %%ymm8\n\t"
      "vpmuludq 224(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm9, %%ymm9\n\t"
      "vpmuludq 256(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm0, %%ymm0\n\t"
      "vpmuludq 288(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm1, %%ymm1\n\t"
      // a_3
      "vmovdqa 96(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpaddq %%ymm11, %%ymm11, %%ymm12\n\t"
      "vpmuludq 96(%[a]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm6, %%ymm6\n\t"
      "vpmuludq 128(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm7, %%ymm7\n\t"
      "vpmuludq 160(%[a]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm8, %%ymm8\n\t"
      "vpmuludq 192(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm9, %%ymm9\n\t"
      "vpmuludq 224(%[a19]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm0, %%ymm0\n\t"
      "vpmuludq 256(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm1, %%ymm1\n\t"
      "vpmuludq 288(%[a19]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm2, %%ymm2\n\t"
      // a_4
      "vmovdqa 128(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 128(%[a]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm8, %%ymm8\n\t"
      "vpmuludq 160(%[a]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm9, %%ymm9\n\t"
      "vpmuludq 192(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm0, %%ymm0\n\t"
      "vpmuludq 224(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm1, %%ymm1\n\t"
      "vpmuludq 256(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm2, %%ymm2\n\t"
      "vpmuludq 288(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm3, %%ymm3\n\t"
      // a_5
      "vmovdqa 160(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpaddq %%ymm11, %%ymm11, %%ymm12\n\t"
      "vpmuludq 160(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm0, %%ymm0\n\t"
      "vpmuludq 192(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm1, %%ymm1\n\t"
      "vpmuludq 224(%[a19]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm2, %%ymm2\n\t"
      "vpmuludq 256(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm3, %%ymm3\n\t"
      "vpmuludq 288(%[a19]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm4, %%ymm4\n\t"
      // a_6
      "vmovdqa 192(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 192(%[a19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm2, %%ymm2\n\t"
      "vpmuludq 224(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm3, %%ymm3\n\t"
      "vpmuludq 256(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm4, %%ymm4\n\t"
      "vpmuludq 288(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm5, %%ymm5\n\t"
      // a_7
      "vmovdqa 224(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpaddq %%ymm11, %%ymm11, %%ymm12\n\t"
      "vpmuludq 224(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm4, %%ymm4\n\t"
      "vpmuludq 256(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm5, %%ymm5\n\t"
      "vpmuludq 288(%[a19]), %%ymm12, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm6, %%ymm6\n\t"
      // a_8
      "vmovdqa 256(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpmuludq 256(%[a19]), %%ymm10, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm6, %%ymm6\n\t"
      "vpmuludq 288(%[a19]), %%ymm11, %%ymm14\n\t"
      "vpaddq %%ymm14, %%ymm7, %%ymm7\n\t"
      // a_9
      "vmovdqa 288(%[a]), %%ymm10\n\t"
      "vpaddq %%ymm10, %%ymm10, %%ymm11\n\t"
      "vpaddq %%ymm11, %%ymm11, %%ymm12\n\t"
      "vpmuludq 288(%[a19]), %%ymm11, %%ymm13\n\t"
      "vpaddq %%ymm13, %%ymm8, %%ymm8\n\t" BP_FE4_STORE_SUMS
      :
      : [a] "r"(a.l), [a19] "r"(a19), [r] "r"(r.l)
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "memory");
  fe4_carry(r);
}

// Value-returning forms, for code off the hot paths (the compiler copies a returned Fe4
// with rep movsq, which costs as much as the additions around it).
BP_AVX2_INLINE Fe4 fe4_mul(const Fe4& a, const Fe4& b) {
  Fe4 r;
  fe4_mul_to(r, a, b);
  return r;
}
BP_AVX2_INLINE Fe4 fe4_sq(const Fe4& a) {
  Fe4 r;
  fe4_sq_to(r, a);
  return r;
}

}  // namespace bp::detail::avx2
