// edwards25519 point arithmetic over the radix 2^64 field (fe64.hpp): the formulas of
// edwards.hpp (Hisil–Wong–Carter–Dawson, a = -1), one multiplication after another, with
// the operand forms msm_four_lanes.inc expects of a backend (the names say "4" because
// the vector backends do the four coordinates at once; here each type is simply a point).
//
// The cached form keeps 2·Z instead of Z (one addition fewer per point addition), and
// table entries, which have Z = 1, get a form of their own: adding one costs seven
// multiplications instead of eight.
#pragma once

#include "bp/detail/edwards.hpp"
#include "backend/mulx/fe64.hpp"

namespace bp::detail::mulx {

struct Extended64 {
  Fe64 X, Y, Z, T;
};

// y+x, y-x and 2d·x·y of a point with Z = 1 (an AffineCached).
struct Affine64 {
  Fe64 YplusX, YminusX, XY2d;
};

struct Cached64 {
  Fe64 YplusX, YminusX, Z2, T2d;
  Cached64() = default;
  Cached64(const Fe64& yplusx, const Fe64& yminusx, const Fe64& z2, const Fe64& t2d)
      : YplusX(yplusx), YminusX(yminusx), Z2(z2), T2d(t2d) {}
  // Where a table entry must sit beside other points (Pippenger's operand array).
  Cached64(const Affine64& a) : YplusX(a.YplusX), YminusX(a.YminusX), Z2(kFe64Two), T2d(a.XY2d) {}  // NOLINT
};

// The shared loops' names for this backend's point types (msm_four_lanes.inc, which the
// vector backends also use, where a point's four coordinates share a register).
using LaneExtended = Extended64;
using LaneCached = Cached64;

// The Straus loop may add an entry through its own form (see msm_four_lanes.inc).
inline constexpr bool kOneAdditionSite = false;

BP_INLINE Extended64 to_extended4(const EdwardsPoint& p) {
  return {fe64_from_fe(p.X), fe64_from_fe(p.Y), fe64_from_fe(p.Z), fe64_from_fe(p.T)};
}

BP_INLINE EdwardsPoint to_edwards(const Extended64& p) {
  return {fe_from_fe64(p.X), fe_from_fe64(p.Y), fe_from_fe64(p.Z), fe_from_fe64(p.T)};
}

BP_INLINE Extended64 identity4() { return {kFe64Zero, kFe64One, kFe64One, kFe64Zero}; }

BP_INLINE Cached64 to_cached4(const Extended64& p) {
  return {fe64_add(p.Y, p.X), fe64_sub(p.Y, p.X), fe64_add(p.Z, p.Z), fe64_mul(p.T, kFe64D2)};
}

BP_INLINE Cached64 to_cached4(const CachedPoint& q) {
  const Fe64 z = fe64_from_fe(q.Z);
  return {fe64_from_fe(q.YplusX), fe64_from_fe(q.YminusX), fe64_add(z, z), fe64_from_fe(q.T2d)};
}

// Table entries are stored carried: only a change of radix.
BP_INLINE Affine64 to_cached4(const AffineCached& q) {
  return {fe64_from_carried(q.YplusX), fe64_from_carried(q.YminusX), fe64_from_carried(q.XY2d)};
}

// -q for an entry: y+x and y-x swap places, 2dxy changes sign.
BP_INLINE Affine64 to_cached4_negated(const AffineCached& q) {
  return {fe64_from_carried(q.YminusX), fe64_from_carried(q.YplusX), fe64_neg(fe64_from_carried(q.XY2d))};
}

BP_INLINE Cached64 neg(const Cached64& q) { return {q.YminusX, q.YplusX, q.Z2, fe64_neg(q.T2d)}; }

// The completed point (E, H, G, F) of an addition, made extended: (E·F, H·G, G·F, E·H).
BP_INLINE void completed_to_extended(Extended64& out, const Fe64& pp, const Fe64& mm, const Fe64& zz2,
                                     const Fe64& tt2d) {
  const Fe64 e = fe64_sub(pp, mm), h = fe64_add(pp, mm), g = fe64_add(zz2, tt2d), f = fe64_sub(zz2, tt2d);
  out = {fe64_mul(e, f), fe64_mul(h, g), fe64_mul(g, f), fe64_mul(e, h)};
}

BP_INLINE void add_to(Extended64& out, const Extended64& p, const Cached64& q) {
  const Fe64 pp = fe64_mul(fe64_add(p.Y, p.X), q.YplusX);
  const Fe64 mm = fe64_mul(fe64_sub(p.Y, p.X), q.YminusX);
  const Fe64 tt2d = fe64_mul(p.T, q.T2d);
  const Fe64 zz2 = fe64_mul(p.Z, q.Z2);
  completed_to_extended(out, pp, mm, zz2, tt2d);
}

BP_INLINE void add_to(Extended64& out, const Extended64& p, const Affine64& q) {
  const Fe64 pp = fe64_mul(fe64_add(p.Y, p.X), q.YplusX);
  const Fe64 mm = fe64_mul(fe64_sub(p.Y, p.X), q.YminusX);
  const Fe64 txy2d = fe64_mul(p.T, q.XY2d);
  completed_to_extended(out, pp, mm, fe64_add(p.Z, p.Z), txy2d);
}

// The completed point of a doubling, (S - XX - YY, XX + YY, YY - XX, 2ZZ - YY + XX) as
// (x, y, z, t); projective needs x·t, y·z, z·t, extended x·y as well.
struct Doubled {
  Fe64 x, y, z, t;
};

BP_INLINE Doubled doubled(const Fe64& X, const Fe64& Y, const Fe64& Z) {
  const Fe64 xx = fe64_sq(X), yy = fe64_sq(Y), zz = fe64_sq(Z), s = fe64_sq(fe64_add(X, Y));
  const Fe64 yy_plus_xx = fe64_add(yy, xx), yy_minus_xx = fe64_sub(yy, xx);
  return {fe64_sub(s, yy_plus_xx), yy_plus_xx, yy_minus_xx, fe64_sub(fe64_add(zz, zz), yy_minus_xx)};
}

BP_INLINE void dbl_to(Extended64& out, const Extended64& p) {
  const Doubled d = doubled(p.X, p.Y, p.Z);
  out = {fe64_mul(d.x, d.t), fe64_mul(d.y, d.z), fe64_mul(d.z, d.t), fe64_mul(d.x, d.y)};
}

BP_INLINE Extended64 dbl(const Extended64& p) {
  Extended64 r;
  dbl_to(r, p);
  return r;
}

// p · 2^k, k >= 1: the doublings before the last skip T, which doubling does not read.
BP_INLINE void mul_by_pow2_in_place(Extended64& p, int k) {
  for (int i = 0; i < k - 1; ++i) {
    const Doubled d = doubled(p.X, p.Y, p.Z);
    p.X = fe64_mul(d.x, d.t);
    p.Y = fe64_mul(d.y, d.z);
    p.Z = fe64_mul(d.z, d.t);
  }
  dbl_to(p, p);
}

}  // namespace bp::detail::mulx
