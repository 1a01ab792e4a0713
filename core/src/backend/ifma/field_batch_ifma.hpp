// Field exponentiations eight at a time on AVX-512 IFMA (plain types here, so callers need
// no AVX-512; call only when the CPU has avx512ifma).
#pragma once

#include "bp/detail/field.hpp"

namespace bp::detail::ifma {

// out[k] = in[k]^((p-5)/8), the exponentiation inside every square root and decoding.
void pow_p58_x8(const Fe in[8], Fe out[8]);
// The same for sixteen: two groups of eight interleaved, for nearly the time of one.
void pow_p58_x16(const Fe in[16], Fe out[16]);

}  // namespace bp::detail::ifma
