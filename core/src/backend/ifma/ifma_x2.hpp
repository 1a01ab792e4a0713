// The IFMA backend's field and point arithmetic on pairs of points, one in each half of
// a 512-bit register (v4x2_ifma.hpp): field52x4.inc and edwards52x4.inc as they are, and
// the conversions to and from the four-lane backend's points (pairs52x4.inc). Called only
// when the CPU has AVX-512 IFMA and VL.
#pragma once

#include "bp/detail/edwards.hpp"
#include "arith/ct_select.hpp"
#include "backend/ifma/ifma.hpp"
#include "backend/ifma/v4x2_ifma.hpp"

namespace bp::detail::ifma_x2 {

namespace half = ifma;

#define BP_LANES_INLINE BP_IFMA_INLINE
#include "backend/ifma/field52x4.inc"
#include "backend/ifma/edwards52x4.inc"
#include "backend/ifma/pairs52x4.inc"
#undef BP_LANES_INLINE

}  // namespace bp::detail::ifma_x2
