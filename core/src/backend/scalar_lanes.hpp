// Runs of scalar products by one factor, eight in the lanes of one vector multiplication
// where the CPU has AVX-512 IFMA (backend/ifma/scalar52x8.inc), one at a time elsewhere.
// The verifier's equation spends most of its scalar arithmetic here (range/proof.cpp).
#pragma once

#include <span>

#include "bp/scalar.hpp"

namespace bp::detail {

// out[k] = x·ys[k] for every k; out and ys are the same span or do not overlap, and x may
// be one of their elements. Constant time either way.
void multiply_each(std::span<Scalar> out, const Scalar& x, std::span<const Scalar> ys);

// The same on the one-at-a-time path whatever the CPU (the tests compare the two).
void multiply_each_one_by_one(std::span<Scalar> out, const Scalar& x, std::span<const Scalar> ys);

}  // namespace bp::detail
