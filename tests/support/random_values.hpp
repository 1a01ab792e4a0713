// Uniformly random points and scalars from libsodium, for the tests that compare two
// computations of the same value.
#pragma once

#include <sodium.h>

#include <array>

#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp::test {

inline RistrettoPoint random_point() {
  CompressedRistretto c;
  crypto_core_ristretto255_random(c.bytes.data());
  return *RistrettoPoint::decompress(c);
}

inline Scalar random_scalar() {
  std::array<uint8_t, 32> s;
  crypto_core_ristretto255_scalar_random(s.data());
  return *Scalar::from_canonical_bytes(s);
}

}  // namespace bp::test
