// Multiscalar multiplication: sum of scalars[i]·points[i].
#pragma once

#include <span>

#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp {

// Constant time in the scalars and the points: for secret scalars (prover).
// Straus with signed radix-16 digits and branch-free table lookups.
RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

// Variable time: public scalars and points only (verifier). Straus with width-5 NAF
// for small inputs, Pippenger's bucket method for large ones.
RistrettoPoint multiscalar_mul_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

namespace detail {
// Exposed so tests can check both vartime algorithms against each other at any size.
RistrettoPoint straus_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
RistrettoPoint pippenger_vartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
}  // namespace detail

class VartimeBaseTable;
namespace detail {
// Pippenger with some points given by their precomputed tables (only P itself is used).
RistrettoPoint pippenger_mixed_vartime(std::span<const Scalar> fixed_scalars,
                                       std::span<const VartimeBaseTable* const> fixed_tables,
                                       std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
}  // namespace detail

}  // namespace bp
