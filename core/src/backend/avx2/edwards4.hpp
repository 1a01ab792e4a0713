// edwards25519 point arithmetic with the four coordinates of one point in the four lanes
// of an Fe4, so an addition is two four-way multiplications instead of eight or nine
// serial ones. The formulas are those of edwards.hpp (Hisil–Wong–Carter–Dawson, a = -1),
// rearranged so that every multiplication happens in all lanes at once:
//
//   addition, P = (X1, Y1, Z1, T1) plus Q cached as (Y2-X2, Y2+X2, 2d·T2, 2·Z2):
//     (Y1-X1, Y1+X1, T1, Z1) × Q            = (A, B, C, D)
//     (B-A, B+A, D-C, D+C)                  = (E, H, F, G)
//     (E, H, F, E) × (F, G, G, H)           = (X3, Y3, Z3, T3)
//   doubling:
//     (X, Y, Z, X+Y)²                       = (XX, YY, ZZ, S)
//     (S-XX-YY, XX+YY, YY-XX, 2ZZ-YY+XX)    = the completed point (x, y, z, t)
//     (x, y, z, x) × (t, z, t, y)           = (X3, Y3, Z3, T3)
#pragma once

#include "backend/avx2/fe4.hpp"
#include "bp/detail/edwards.hpp"

namespace bp::detail::avx2 {

struct Extended4 {
  Fe4 f;  // lanes X, Y, Z, T
};

struct Cached4 {
  Fe4 f;  // lanes Y-X, Y+X, 2d·T, 2·Z
};

// The shared loops' names for the point types (msm_four_lanes.inc, four_lane_loops.inc).
using LaneExtended = Extended4;
using LaneCached = Cached4;

// msm_four_lanes.inc: every Straus term through one addition call site.
inline constexpr bool kOneAdditionSite = true;

// Portable limbs may be up to 2^54 between operations; fe4_from_lanes wants them carried.
BP_AVX2_INLINE Extended4 to_extended4(const EdwardsPoint& p) {
  return {fe4_from_lanes(fe_carry(p.X), fe_carry(p.Y), fe_carry(p.Z), fe_carry(p.T))};
}

BP_AVX2_INLINE EdwardsPoint to_edwards(const Extended4& p) {
  Fe out[4];
  fe4_to_lanes(p.f, out);
  return {out[0], out[1], out[2], out[3]};
}

BP_AVX2_INLINE Extended4 identity4() { return to_extended4(kIdentity); }

// From the portable operand forms (no multiplication: only a change of radix and layout).
// Table entries are stored carried.
BP_AVX2_INLINE Cached4 to_cached4(const CachedPoint& q) {
  return {fe4_from_lanes(fe_carry(q.YminusX), fe_carry(q.YplusX), fe_carry(q.T2d), fe_carry(fe_add(q.Z, q.Z)))};
}
BP_AVX2_INLINE Cached4 to_cached4(const AffineCached& q) {
  return {fe4_from_lanes(q.YminusX, q.YplusX, q.XY2d, kFeTwo)};
}
// -q for an affine entry: y+x and y-x swap places, 2dxy changes sign.
BP_AVX2_INLINE Cached4 to_cached4_negated(const AffineCached& q) {
  return {fe4_from_lanes(q.YplusX, q.YminusX, fe_neg(q.XY2d), kFeTwo)};
}

// (X, Y, Z, T) -> (Y-X, Y+X, T, Z) for carried input; not carried again (a valid fe4_mul
// input as it is).
BP_AVX2_INLINE Fe4 diff_sum_xy_swap_zt(const Fe4& v) {
  const Fe4 t = fe4_permute<order(1, 0, 3, 2)>(v);  // (Y, X, T, Z)
  Fe4 r;
  for (int i = 0; i < 10; ++i) {
    const __m256i diff = _mm256_sub_epi64(_mm256_add_epi64(t.l[i], two_p_limb(i)), v.l[i]);
    const __m256i sum = _mm256_add_epi64(t.l[i], v.l[i]);
    r.l[i] = _mm256_blend_epi32(_mm256_blend_epi32(t.l[i], diff, lanes(1, 0, 0, 0)), sum, lanes(0, 1, 0, 0));
  }
  return r;
}

// (a, b, c, d) -> (b-a, b+a, d-c, d+c) for carried input; a valid fe4_mul input.
BP_AVX2_INLINE Fe4 diff_sum(const Fe4& v) {
  const Fe4 t = fe4_permute<order(1, 0, 3, 2)>(v);
  Fe4 r;
  for (int i = 0; i < 10; ++i) {
    const __m256i diff = _mm256_sub_epi64(_mm256_add_epi64(t.l[i], two_p_limb(i)), v.l[i]);
    const __m256i sum = _mm256_add_epi64(t.l[i], v.l[i]);
    r.l[i] = _mm256_blend_epi32(diff, sum, lanes(0, 1, 0, 1));
  }
  return r;
}

// out = p + q; out may be p. Results go straight into their destination: a returned
// 320-byte Fe4 is copied with rep movsq, which cost as much as the rest of the addition.
BP_AVX2_INLINE void add_to(Extended4& out, const Extended4& p, const Cached4& q) {
  Fe4 abcd;
  fe4_mul_to(abcd, diff_sum_xy_swap_zt(p.f), q.f);
  const Fe4 ehfg = diff_sum(abcd);
  fe4_mul_to(out.f, fe4_permute<order(0, 1, 2, 0)>(ehfg), fe4_permute<order(2, 3, 3, 1)>(ehfg));
}

BP_AVX2_INLINE Extended4 add(const Extended4& p, const Cached4& q) {
  Extended4 r;
  add_to(r, p, q);
  return r;
}

// -q: swap the first two lanes, negate the third.
BP_AVX2_INLINE Cached4 neg(const Cached4& q) {
  return {fe4_negate_lanes<lanes(0, 0, 1, 0)>(fe4_permute<order(1, 0, 2, 3)>(q.f))};
}

// out = 2p; out may be p.
BP_AVX2_INLINE void dbl_to(Extended4& out, const Extended4& p) {
  const Fe4& v = p.f;
  const Fe4 xyzx = fe4_permute<order(0, 1, 2, 0)>(v);
  const Fe4 y_in_last = fe4_blend<lanes(0, 0, 0, 1)>(Fe4{}, fe4_permute<order(1, 1, 1, 1)>(v));
  Fe4 squares;  // (XX, YY, ZZ, S)
  fe4_sq_to(squares, fe4_add(xyzx, y_in_last));
  // (XX+YY, YY-XX, ZZ, S)
  const Fe4 swapped = fe4_permute<order(1, 0, 2, 3)>(squares);
  Fe4 w;
  for (int i = 0; i < 10; ++i) {
    const __m256i sum = _mm256_add_epi64(squares.l[i], swapped.l[i]);
    const __m256i diff = _mm256_sub_epi64(_mm256_add_epi64(squares.l[i], two_p_limb(i)), swapped.l[i]);
    w.l[i] = _mm256_blend_epi32(_mm256_blend_epi32(squares.l[i], sum, lanes(1, 0, 0, 0)), diff, lanes(0, 1, 0, 0));
  }
  // Not carried: below 2^27.6, and 4p covers it as a subtrahend below.
  // (S, XX+YY, YY-XX, ZZ) minus (XX+YY, -, -, YY-XX), plus ZZ once more in the last lane.
  const Fe4 a = fe4_permute<order(3, 0, 1, 2)>(w);
  const Fe4 b = fe4_permute<order(0, 0, 0, 1)>(w);
  Fe4 completed;
  for (int i = 0; i < 10; ++i) {
    const __m256i diff = _mm256_sub_epi64(_mm256_add_epi64(a.l[i], four_p_limb(i)), b.l[i]);
    const __m256i last = _mm256_add_epi64(diff, a.l[i]);
    completed.l[i] = _mm256_blend_epi32(_mm256_blend_epi32(a.l[i], diff, lanes(1, 0, 0, 0)), last, lanes(0, 0, 0, 1));
  }
  fe4_carry(completed);
  fe4_mul_to(out.f, fe4_permute<order(0, 1, 2, 0)>(completed), fe4_permute<order(3, 2, 3, 1)>(completed));
}

BP_AVX2_INLINE Extended4 dbl(const Extended4& p) {
  Extended4 r;
  dbl_to(r, p);
  return r;
}

// p = p·2^k.
BP_AVX2_INLINE void mul_by_pow2_in_place(Extended4& p, int k) {
  for (int i = 0; i < k; ++i) dbl_to(p, p);
}

// (Y-X, Y+X, T, Z) × (1, 1, 2d, 2).
BP_AVX2_INLINE Cached4 to_cached4(const Extended4& p) {
  const Fe4 factors = fe4_from_lanes(kFeOne, kFeOne, kD2, kFeTwo);
  return {fe4_mul(diff_sum_xy_swap_zt(p.f), factors)};
}

}  // namespace bp::detail::avx2
