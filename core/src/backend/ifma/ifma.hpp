// The IFMA backend's field and point arithmetic (field52x4.inc, edwards52x4.inc) on the
// hardware instructions (v4_ifma.hpp). Called only when the CPU has AVX-512 IFMA and VL.
#pragma once

#include "bp/detail/edwards.hpp"
#include "arith/ct_select.hpp"
#include "backend/ifma/v4_ifma.hpp"

namespace bp::detail::ifma {

#define BP_LANES_INLINE BP_IFMA_INLINE
#include "backend/ifma/field52x4.inc"
#include "backend/ifma/edwards52x4.inc"
#undef BP_LANES_INLINE
#include "backend/ifma/ct_select_ifma.inc"

}  // namespace bp::detail::ifma
