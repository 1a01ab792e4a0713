// The IFMA backend's field and point arithmetic compiled over emulated instructions
// (v4_emulated.hpp): the same source as ifma.hpp, runnable on any CPU, for the tests.
#pragma once

#include "bp/detail/edwards.hpp"
#include "arith/ct_select.hpp"
#include "backend/ifma/v4_emulated.hpp"

namespace bp::detail::ifma_emulated {

#define BP_LANES_INLINE inline
#include "backend/ifma/field52x4.inc"
#include "backend/ifma/edwards52x4.inc"
#undef BP_LANES_INLINE

inline Cached4 ct_select4(const AffineCached* entries, int8_t digit) { return ct_select4_limbwise(entries, digit); }

}  // namespace bp::detail::ifma_emulated
