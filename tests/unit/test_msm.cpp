// Multiscalar multiplication: the constant-time and both variable-time algorithms against
// a naive sum of libsodium scalar multiplications.
#include <doctest/doctest.h>
#include <sodium.h>

#include <vector>

#include "bp/msm.hpp"

using bp::CompressedRistretto;
using bp::RistrettoPoint;
using bp::Scalar;

namespace {

struct Instance {
  std::vector<Scalar> scalars;
  std::vector<RistrettoPoint> points;
  CompressedRistretto expected;
};

Instance make_instance(size_t n, bool edge_scalars) {
  Instance in;
  CompressedRistretto acc{};
  for (size_t i = 0; i < n; ++i) {
    std::array<uint8_t, 32> s;
    crypto_core_ristretto255_scalar_random(s.data());
    if (edge_scalars) {
      // zero, one, l - 1, and small values exercise the digit carries.
      if (i % 4 == 0) s.fill(0);
      if (i % 4 == 1) { s.fill(0); s[0] = 1; }
      if (i % 4 == 2) crypto_core_ristretto255_scalar_negate(s.data(), std::array<uint8_t, 32>{1}.data());
    }
    CompressedRistretto p;
    crypto_core_ristretto255_random(p.bytes.data());
    CompressedRistretto term{};
    if (crypto_scalarmult_ristretto255(term.bytes.data(), s.data(), p.bytes.data()) != 0) term = {};
    CompressedRistretto next;
    crypto_core_ristretto255_add(next.bytes.data(), acc.bytes.data(), term.bytes.data());
    acc = next;
    in.scalars.push_back(*Scalar::from_canonical_bytes(s));
    in.points.push_back(*RistrettoPoint::decompress(p));
  }
  in.expected = acc;
  return in;
}

}  // namespace

TEST_CASE("all algorithms agree with the naive sum") {
  for (size_t n : {0, 1, 2, 3, 7, 16, 65, 200}) {
    for (bool edge : {false, true}) {
      CAPTURE(n);
      CAPTURE(edge);
      const Instance in = make_instance(n, edge);
      CHECK(bp::multiscalar_mul(in.scalars, in.points).compress() == in.expected);
      CHECK(bp::detail::straus_vartime(in.scalars, in.points).compress() == in.expected);
      CHECK(bp::detail::pippenger_vartime(in.scalars, in.points).compress() == in.expected);
      CHECK(bp::multiscalar_mul_vartime(in.scalars, in.points).compress() == in.expected);
    }
  }
}

TEST_CASE("large Pippenger instances agree with Straus") {
  for (size_t n : {600, 1100}) {
    CAPTURE(n);
    const Instance in = make_instance(n, false);
    CHECK(bp::detail::pippenger_vartime(in.scalars, in.points).compress() == in.expected);
  }
}
