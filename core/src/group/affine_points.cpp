#include "group/affine_points.hpp"

namespace bp::detail {

void to_affine_cached(std::span<const EdwardsPoint> points, std::vector<AffineCached>& out) {
  const size_t total = points.size();
  // prefix[i] = Z_0 · ... · Z_(i-1); one inversion of the whole product, then each 1/Z_i
  // on the way back (Montgomery's trick).
  thread_local std::vector<Fe> prefix;
  prefix.resize(total);
  out.resize(total);
  Fe acc = kFeOne;
  for (size_t i = 0; i < total; ++i) {
    prefix[i] = acc;
    acc = fe_mul(acc, points[i].Z);
  }
  Fe inv = fe_invert(acc);
  for (size_t i = total; i-- > 0;) {
    const Fe z_inv = fe_mul(inv, prefix[i]);
    inv = fe_mul(inv, points[i].Z);
    const Fe x = fe_mul(points[i].X, z_inv);
    const Fe y = fe_mul(points[i].Y, z_inv);
    out[i] = {fe_carry(fe_add(y, x)), fe_sub(y, x), fe_mul(fe_mul(x, y), kD2)};
  }
}

}  // namespace bp::detail
