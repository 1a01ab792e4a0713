// The multiscalar multiplications on the AVX2 backend (same results as the portable
// ones; called only when the CPU has AVX2). Plain types here, so callers need no AVX2.
#pragma once

#include <span>

#include "bp/precomputed.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp::detail::avx2 {

// Variable time, public scalars: Straus with NAF digits (tables for the fixed points,
// odd multiples built here for the others) and Pippenger's bucket method.
RistrettoPoint straus_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                    std::span<const VartimeBaseTable* const> fixed_tables,
                                    std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
RistrettoPoint pippenger_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

// Constant time, secret scalars: signed radix-16 Straus with branch-free lookups.
RistrettoPoint multiscalar_mul_ct(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables);
RistrettoPoint multiscalar_mul_ct(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

}  // namespace bp::detail::avx2
