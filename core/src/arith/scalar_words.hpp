// A Scalar's Montgomery words (x·2^256 mod l, four little-endian 64-bit words, canonical),
// for the vector kernels of the floor (backend/scalar_lanes) that multiply many scalars at
// once. Nothing above the arithmetic floor sees them: Scalar stays opaque to the proofs.
#pragma once

#include <cstdint>

#include "bp/scalar.hpp"

namespace bp::detail {

struct ScalarWords {
  static const uint64_t* of(const Scalar& s) { return s.m_; }
  static uint64_t* of(Scalar& s) { return s.m_; }
};

}  // namespace bp::detail
