// Multiscalar multiplication: the constant-time and both variable-time algorithms, and the
// ones reading precomputed tables (NAF, shifted, constant time), against a naive sum of
// libsodium scalar multiplications.
#include <doctest/doctest.h>
#include <sodium.h>

#include <vector>

#include "bp/detail/op_tally.hpp"
#include "bp/msm.hpp"
#include "bp/precomputed.hpp"

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
      if (i % 4 == 1) {
        s.fill(0);
        s[0] = 1;
      }
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

TEST_CASE("shifted tables hold P, 2^11·P, 2^22·P, ...") {
  const Instance in = make_instance(3, false);
  const auto tables = bp::ShiftedBaseTable::build(in.points);
  REQUIRE(tables.size() == 3);
  for (size_t p = 0; p < 3; ++p) {
    RistrettoPoint expected = in.points[p];
    const std::vector<const bp::ShiftedBaseTable*> table{&tables[p]};
    // l - 1 has bit 252 set, so its digits carry into the last window (2^253·P).
    const std::vector<Scalar> minus_one{-Scalar::one()};
    CHECK(bp::multiscalar_mul_vartime(minus_one, table, {}, {}).compress() == (-in.points[p]).compress());
    for (int k = 0; k + 1 < bp::ShiftedBaseTable::kWindows; ++k) {
      CAPTURE(k);
      // The scalar 2^(11k) has one nonzero digit, in window k: the sum is that entry.
      std::array<uint8_t, 32> bytes{};
      bytes[(11 * k) / 8] = static_cast<uint8_t>(1u << ((11 * k) % 8));
      const std::vector<Scalar> scalar{*Scalar::from_canonical_bytes(bytes)};
      CHECK(bp::multiscalar_mul_vartime(scalar, table, {}, {}).compress() == expected.compress());
      for (int d = 0; d < 11; ++d) expected = expected + expected;
    }
  }
}

TEST_CASE("multiplications through precomputed tables agree with the naive sum") {
  for (size_t n : {0, 1, 2, 5, 40, 300, 1100}) {
    for (bool edge : {false, true}) {
      CAPTURE(n);
      CAPTURE(edge);
      const Instance in = make_instance(n, edge);
      const auto naf = bp::VartimeBaseTable::build(in.points);
      const auto shifted = bp::ShiftedBaseTable::build(in.points);
      std::vector<const bp::VartimeBaseTable*> naf_ptrs;
      std::vector<const bp::ShiftedBaseTable*> shifted_ptrs;
      for (size_t i = 0; i < n; ++i) {
        naf_ptrs.push_back(&naf[i]);
        shifted_ptrs.push_back(&shifted[i]);
      }
      // All fixed, and the first third fixed with the rest as plain points.
      const size_t k = n / 3;
      const std::span<const Scalar> all(in.scalars), first(in.scalars.data(), k), rest(in.scalars.data() + k, n - k);
      const std::span<const RistrettoPoint> rest_points(in.points.data() + k, n - k);
      CHECK(bp::multiscalar_mul_vartime(all, naf_ptrs, {}, {}).compress() == in.expected);
      CHECK(bp::multiscalar_mul_vartime(first, std::span(naf_ptrs).first(k), rest, rest_points).compress() ==
            in.expected);
      CHECK(bp::multiscalar_mul_vartime(all, shifted_ptrs, {}, {}).compress() == in.expected);
      CHECK(bp::multiscalar_mul_vartime(first, std::span(shifted_ptrs).first(k), rest, rest_points).compress() ==
            in.expected);
      if (n <= 300) {
        const auto ct = bp::CtBaseTable::build(in.points);
        std::vector<const bp::CtBaseTable*> ct_ptrs;
        for (const auto& t : ct) ct_ptrs.push_back(&t);
        CHECK(bp::multiscalar_mul(all, ct_ptrs).compress() == in.expected);
      }
      if (n <= 8) {  // comb tables are 61 KB each: the few points multiplied alone
        std::vector<std::unique_ptr<bp::CtCombTable>> combs;
        std::vector<const bp::CtCombTable*> comb_ptrs;
        for (const auto& p : in.points) comb_ptrs.push_back(combs.emplace_back(bp::CtCombTable::build(p)).get());
        CHECK(bp::multiscalar_mul(all, comb_ptrs).compress() == in.expected);
      }
    }
  }
}

// The operation counts of bp bench --limit (bp/detail/op_tally.hpp).
TEST_CASE("the operation tally counts only while installed, and each algorithm as it runs") {
  using bp::detail::OpTally;
  REQUIRE(bp::detail::op_tally() == nullptr);
  const Instance a = make_instance(5, false), b = make_instance(5, true);

  // Constant time: 64 digits a scalar, a table of 1P..8P a point, 63·4 doublings, whatever
  // the scalars are.
  OpTally ct_a, ct_b;
  bp::detail::install_op_tally(&ct_a);
  (void)bp::multiscalar_mul(a.scalars, a.points);
  bp::detail::install_op_tally(&ct_b);
  (void)bp::multiscalar_mul(b.scalars, b.points);
  bp::detail::install_op_tally(nullptr);
  CHECK(ct_a.additions == 5 * (64 + 6));
  CHECK(ct_a.doublings == 252 + 5);
  CHECK(ct_b.additions == ct_a.additions);
  CHECK(ct_b.doublings == ct_a.doublings);
  CHECK(ct_a.msm_calls == 1);
  CHECK(ct_a.msm_points == 5);

  // Variable time, Straus: the scalar 1 has one NAF digit, at bit 0; each point's table of
  // odd multiples costs a doubling and seven additions.
  const std::vector<Scalar> ones(3, Scalar::one());
  const std::vector<RistrettoPoint> three(a.points.begin(), a.points.begin() + 3);
  OpTally straus;
  bp::detail::install_op_tally(&straus);
  (void)bp::multiscalar_mul_vartime(ones, three);
  bp::detail::install_op_tally(nullptr);
  CHECK(straus.additions == 3 * (1 + 7));
  CHECK(straus.doublings == 3 + 1);

  // Nothing is counted once the tally is taken away.
  (void)bp::multiscalar_mul_vartime(a.scalars, a.points);
  CHECK(straus.msm_calls == 1);
  CHECK(bp::detail::op_tally() == nullptr);
}
