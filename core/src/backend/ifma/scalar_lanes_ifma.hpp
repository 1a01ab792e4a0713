// Scalar products eight at a time on AVX-512 IFMA (plain words here, so callers need no
// AVX-512; call only when the CPU has avx512ifma). The lanes' notes: scalar52x8.inc.
#pragma once

#include <cstdint>

namespace bp::detail::ifma {

// out[k] = x·ys[k]/2^256 mod l for k < 8, on Scalar's Montgomery words (canonical in and out).
void scalar_times_x8(const uint64_t x[4], const uint64_t (*ys)[4], uint64_t (*out)[4]);

}  // namespace bp::detail::ifma
