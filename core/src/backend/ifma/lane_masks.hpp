// Compile-time lane arguments of the four-lane operations in v4_ifma.hpp and
// v4_emulated.hpp (both encode them the same way, so field52x4.inc reads the same on each).
#pragma once

namespace bp::detail {

// Output lane i takes input lane p_i (the encoding of vpermq's immediate).
constexpr int lane_order(int p0, int p1, int p2, int p3) { return p0 | (p1 << 2) | (p2 << 4) | (p3 << 6); }

// The lanes a blend takes from its second operand, one bit per lane.
constexpr int lane_set(bool l0, bool l1, bool l2, bool l3) {
  return (l0 ? 1 : 0) | (l1 ? 2 : 0) | (l2 ? 4 : 0) | (l3 ? 8 : 0);
}

}  // namespace bp::detail
