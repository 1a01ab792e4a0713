// Field exponentiations four at a time on the AVX2 backend (plain types here, so callers
// need no AVX2; call only when the CPU has it).
#pragma once

#include "bp/detail/field.hpp"

namespace bp::detail::avx2 {

// out[k] = in[k]^((p-5)/8), the exponentiation inside every square root and decoding.
void pow_p58_x4(const Fe in[4], Fe out[4]);

}  // namespace bp::detail::avx2
