// Points of the twisted Edwards curve -x² + y² = 1 + d·x²·y² (edwards25519), the group
// underneath ristretto255.
//
// Representations (Hisil–Wong–Carter–Dawson):
//   EdwardsPoint    extended (X:Y:Z:T), x = X/Z, y = Y/Z, T = XY/Z
//   ProjectivePoint (X:Y:Z), enough for doubling
//   CompletedPoint  ((X:Z),(Y:T)), the output of one addition or doubling
//   CachedPoint     (Y+X, Y−X, Z, 2dT), the second operand of an addition
//   AffineCached    (y+x, y−x, 2dxy) with Z = 1, one multiplication cheaper
// All formulas here are complete and branch free.
#pragma once

#include "bp/detail/field.hpp"

namespace bp::detail {

struct ProjectivePoint {
  Fe X, Y, Z;
};

struct CompletedPoint {
  Fe X, Y, Z, T;
};

struct CachedPoint {
  Fe YplusX, YminusX, Z, T2d;
};

struct AffineCached {
  Fe YplusX, YminusX, XY2d;
};

struct EdwardsPoint {
  Fe X, Y, Z, T;
};

inline constexpr EdwardsPoint kIdentity{kFeZero, kFeOne, kFeOne, kFeZero};
inline constexpr CachedPoint kCachedIdentity{kFeOne, kFeOne, kFeOne, kFeZero};
inline constexpr AffineCached kAffineCachedIdentity{kFeOne, kFeOne, kFeZero};

// The ed25519 basepoint, which is also the ristretto255 generator B.
inline constexpr EdwardsPoint kBasepoint{
    {{0x62d608f25d51aULL, 0x412a4b4f6592aULL, 0x75b7171a4b31dULL, 0x1ff60527118feULL, 0x216936d3cd6e5ULL}},
    {{0x6666666666658ULL, 0x4ccccccccccccULL, 0x1999999999999ULL, 0x3333333333333ULL, 0x6666666666666ULL}},
    kFeOne,
    {{0x68ab3a5b7dda3ULL, 0xeea2a5eadbbULL, 0x2af8df483c27eULL, 0x332b375274732ULL, 0x67875f0fd78b7ULL}}};

BP_INLINE EdwardsPoint to_extended(const CompletedPoint& p) {
  return {fe_mul(p.X, p.T), fe_mul(p.Y, p.Z), fe_mul(p.Z, p.T), fe_mul(p.X, p.Y)};
}

BP_INLINE ProjectivePoint to_projective(const CompletedPoint& p) {
  return {fe_mul(p.X, p.T), fe_mul(p.Y, p.Z), fe_mul(p.Z, p.T)};
}

BP_INLINE ProjectivePoint to_projective(const EdwardsPoint& p) { return {p.X, p.Y, p.Z}; }

BP_INLINE CachedPoint to_cached(const EdwardsPoint& p) {
  return {fe_add(p.Y, p.X), fe_sub(p.Y, p.X), p.Z, fe_mul(p.T, kD2)};
}

BP_INLINE CompletedPoint dbl(const ProjectivePoint& p) {
  const Fe xx = fe_sq(p.X);
  const Fe yy = fe_sq(p.Y);
  const Fe zz2 = fe_sq2(p.Z);
  const Fe x_plus_y_sq = fe_sq(fe_add(p.X, p.Y));
  const Fe yy_plus_xx = fe_add(yy, xx);
  const Fe yy_minus_xx = fe_sub(yy, xx);
  return {fe_sub(x_plus_y_sq, yy_plus_xx), yy_plus_xx, yy_minus_xx, fe_sub(zz2, yy_minus_xx)};
}

BP_INLINE CompletedPoint add(const EdwardsPoint& p, const CachedPoint& q) {
  const Fe pp = fe_mul(fe_add(p.Y, p.X), q.YplusX);
  const Fe mm = fe_mul(fe_sub(p.Y, p.X), q.YminusX);
  const Fe tt2d = fe_mul(p.T, q.T2d);
  const Fe zz = fe_mul(p.Z, q.Z);
  const Fe zz2 = fe_add(zz, zz);
  return {fe_sub(pp, mm), fe_add(pp, mm), fe_add(zz2, tt2d), fe_sub(zz2, tt2d)};
}

BP_INLINE CompletedPoint sub(const EdwardsPoint& p, const CachedPoint& q) {
  const Fe pm = fe_mul(fe_add(p.Y, p.X), q.YminusX);
  const Fe mp = fe_mul(fe_sub(p.Y, p.X), q.YplusX);
  const Fe tt2d = fe_mul(p.T, q.T2d);
  const Fe zz = fe_mul(p.Z, q.Z);
  const Fe zz2 = fe_add(zz, zz);
  return {fe_sub(pm, mp), fe_add(pm, mp), fe_sub(zz2, tt2d), fe_add(zz2, tt2d)};
}

BP_INLINE CompletedPoint add(const EdwardsPoint& p, const AffineCached& q) {
  const Fe pp = fe_mul(fe_add(p.Y, p.X), q.YplusX);
  const Fe mm = fe_mul(fe_sub(p.Y, p.X), q.YminusX);
  const Fe txy2d = fe_mul(p.T, q.XY2d);
  const Fe z2 = fe_add(p.Z, p.Z);
  return {fe_sub(pp, mm), fe_add(pp, mm), fe_add(z2, txy2d), fe_sub(z2, txy2d)};
}

BP_INLINE CompletedPoint sub(const EdwardsPoint& p, const AffineCached& q) {
  const Fe pm = fe_mul(fe_add(p.Y, p.X), q.YminusX);
  const Fe mp = fe_mul(fe_sub(p.Y, p.X), q.YplusX);
  const Fe txy2d = fe_mul(p.T, q.XY2d);
  const Fe z2 = fe_add(p.Z, p.Z);
  return {fe_sub(pm, mp), fe_add(pm, mp), fe_sub(z2, txy2d), fe_add(z2, txy2d)};
}

BP_INLINE EdwardsPoint operator+(const EdwardsPoint& p, const EdwardsPoint& q) {
  return to_extended(add(p, to_cached(q)));
}
BP_INLINE EdwardsPoint operator-(const EdwardsPoint& p, const EdwardsPoint& q) {
  return to_extended(sub(p, to_cached(q)));
}

BP_INLINE EdwardsPoint dbl(const EdwardsPoint& p) { return to_extended(dbl(to_projective(p))); }

BP_INLINE EdwardsPoint neg(const EdwardsPoint& p) { return {fe_neg(p.X), p.Y, p.Z, fe_neg(p.T)}; }

BP_INLINE CachedPoint neg(const CachedPoint& p) { return {p.YminusX, p.YplusX, p.Z, fe_neg(p.T2d)}; }

// p · 2^k.
BP_INLINE EdwardsPoint mul_by_pow2(const EdwardsPoint& p, int k) {
  ProjectivePoint r = to_projective(p);
  for (int i = 0; i < k - 1; ++i) r = to_projective(dbl(r));
  return to_extended(dbl(r));
}

BP_INLINE void cmov(CachedPoint& r, const CachedPoint& a, uint64_t mask) {
  fe_cmov(r.YplusX, a.YplusX, mask);
  fe_cmov(r.YminusX, a.YminusX, mask);
  fe_cmov(r.Z, a.Z, mask);
  fe_cmov(r.T2d, a.T2d, mask);
}

BP_INLINE void cmov(EdwardsPoint& r, const EdwardsPoint& a, uint64_t mask) {
  fe_cmov(r.X, a.X, mask);
  fe_cmov(r.Y, a.Y, mask);
  fe_cmov(r.Z, a.Z, mask);
  fe_cmov(r.T, a.T, mask);
}

BP_INLINE void cmov(AffineCached& r, const AffineCached& a, uint64_t mask) {
  fe_cmov(r.YplusX, a.YplusX, mask);
  fe_cmov(r.YminusX, a.YminusX, mask);
  fe_cmov(r.XY2d, a.XY2d, mask);
}

// Negation of an affine cached point (swap y+x with y-x, negate 2dxy), only when mask is all-ones.
BP_INLINE void cneg(AffineCached& r, uint64_t mask) {
  Fe swap_a = r.YplusX;
  fe_cmov(r.YplusX, r.YminusX, mask);
  fe_cmov(r.YminusX, swap_a, mask);
  fe_cmov(r.XY2d, fe_neg(r.XY2d), mask);
}

// Negation of a cached point, applied only when mask is all-ones.
BP_INLINE void cneg(CachedPoint& r, uint64_t mask) {
  Fe swap_a = r.YplusX;
  fe_cmov(r.YplusX, r.YminusX, mask);
  fe_cmov(r.YminusX, swap_a, mask);
  fe_cmov(r.T2d, fe_neg(r.T2d), mask);
}

}  // namespace bp::detail
