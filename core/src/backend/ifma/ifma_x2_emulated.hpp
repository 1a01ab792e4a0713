// The pair arithmetic of ifma_x2.hpp compiled over emulated instructions
// (v4x2_emulated.hpp), runnable on any CPU, for the tests.
#pragma once

#include "bp/detail/edwards.hpp"
#include "arith/ct_select.hpp"
#include "backend/ifma/ifma_emulated.hpp"
#include "backend/ifma/v4x2_emulated.hpp"

namespace bp::detail::ifma_x2_emulated {

namespace half = ifma_emulated;

#define BP_LANES_INLINE inline
#include "backend/ifma/field52x4.inc"
#include "backend/ifma/edwards52x4.inc"
#include "backend/ifma/pairs52x4.inc"
#undef BP_LANES_INLINE

}  // namespace bp::detail::ifma_x2_emulated
