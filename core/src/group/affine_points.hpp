// Points in affine cached form (y+x, y−x, 2dxy), many at once with one field inversion:
// the precomputed tables keep their entries this way, and the portable Pippenger converts
// its other points too, since an affine addend saves a multiplication in every addition.
#pragma once

#include <span>
#include <vector>

#include "bp/detail/edwards.hpp"

namespace bp::detail {

// out[i] = points[i] in affine cached form. Every Z must be nonzero, as it is for every
// point in extended coordinates.
void to_affine_cached(std::span<const EdwardsPoint> points, std::vector<AffineCached>& out);

}  // namespace bp::detail
