// Bounded statements (bp/bounds.hpp): the shifted commitments are what a third party derives
// from V and the bounds, a proof over them is a standard aggregated range proof that verifies
// with the verifier alone, and bad bounds, values outside them, and a proof shown against
// other bounds are refused with their own errors.
#include "bp/bounds.hpp"

#include <doctest/doctest.h>

#include "bp/random.hpp"
#include "bp/range_proof.hpp"

using namespace bp;

namespace {

struct Statement {
  std::vector<CompressedRistretto> commitments;  // the values' own V
  RangeProof proof;
  size_t n = 0;
  std::string label;
};

// Proves values within bounds as one range proof over their positions (padded by
// bounded_witness to a power of two).
Result<Statement> prove_bounded(std::span<const uint64_t> values, std::span<const ValueBounds> bounds, size_t n) {
  SystemRandom rng;
  const PedersenGens pc_gens;
  std::vector<Scalar> blindings;
  Statement s;
  for (uint64_t v : values) {
    blindings.push_back(Scalar::random(rng));
    s.commitments.push_back(pc_gens.commit(Scalar::from_u64(v), blindings.back()).compress());
  }
  auto w = bounded_witness(values, blindings, bounds, n);
  if (!w) return w.error();
  const BulletproofGens bp_gens(n, w->values.size());
  s.n = n;
  s.label = bounded_label("test", bounds);
  Transcript t(s.label);
  auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, t, w->values, w->blindings, n);
  w->wipe();
  if (!proved) return proved.error();
  s.proof = proved->proof;
  return s;
}

Status verify_bounded(const Statement& s, std::span<const ValueBounds> bounds) {
  const PedersenGens pc_gens;
  auto positions = bounded_commitments(pc_gens, s.commitments, bounds);
  if (!positions) return positions.error();
  const BulletproofGens bp_gens(s.n, positions->size());
  Transcript t(bounded_label("test", bounds));
  return s.proof.verify_multiple(bp_gens, pc_gens, t, *positions, s.n);
}

}  // namespace

TEST_CASE("the shifted commitments are V - min·B and max·B - V, with blindings γ and -γ") {
  SystemRandom rng;
  const PedersenGens pc_gens;
  const uint64_t v = 1000;
  const Scalar gamma = Scalar::random(rng);
  const CompressedRistretto V = pc_gens.commit(Scalar::from_u64(v), gamma).compress();
  const std::vector<ValueBounds> bounds{{250, 4000}};
  auto positions = bounded_commitments(pc_gens, {&V, 1}, bounds);
  REQUIRE(positions.ok());
  REQUIRE(positions->size() == 2);
  CHECK((*positions)[0] == pc_gens.commit(Scalar::from_u64(750), gamma).compress());
  CHECK((*positions)[1] == pc_gens.commit(Scalar::from_u64(3000), -gamma).compress());
  // The prover's positions open them.
  const uint64_t values[] = {v};
  auto w = bounded_witness(values, {&gamma, 1}, bounds, 16);
  REQUIRE(w.ok());
  CHECK(w->values == std::vector<uint64_t>{750, 3000});
  CHECK(pc_gens.commit(Scalar::from_u64(w->values[1]), w->blindings[1]).compress() == (*positions)[1]);
}

TEST_CASE("bounded values prove and verify; a minimum alone takes one position") {
  const std::vector<uint64_t> values{5, 70000, 18446744073709551615ull};
  const std::vector<ValueBounds> bounds{{5, 10}, {65536, 131071}, {1, std::nullopt}};
  CHECK(bounded_positions(bounds) == 5);
  auto n = bits_covering(bounds);
  REQUIRE(n.ok());
  CHECK(*n == 64);  // a minimum alone leaves v - min anything below 2^64
  auto s = prove_bounded(values, bounds, *n);
  REQUIRE(s.ok());
  CHECK(verify_bounded(*s, bounds).ok());

  // Both ends at the edges of [min, max], and n the least that covers max - min.
  const std::vector<ValueBounds> tight{{100, 355}, {100, 355}};
  CHECK(*bits_covering(tight) == 8);
  CHECK(*bits_covering(std::vector<ValueBounds>{{0, 256}}) == 16);
  const std::vector<uint64_t> edges{100, 355};
  auto e = prove_bounded(edges, tight, 8);
  REQUIRE(e.ok());
  CHECK(verify_bounded(*e, tight).ok());
}

TEST_CASE("a proof shown against other bounds, or with a commitment swapped, does not verify") {
  const std::vector<uint64_t> values{42, 7};
  const std::vector<ValueBounds> bounds{{40, 50}, {0, 10}};
  auto s = prove_bounded(values, bounds, 8);
  REQUIRE(s.ok());
  REQUIRE(verify_bounded(*s, bounds).ok());
  CHECK(verify_bounded(*s, std::vector<ValueBounds>{{41, 50}, {0, 10}}).error() == ProofError::VerificationError);
  CHECK(verify_bounded(*s, std::vector<ValueBounds>{{40, 50}, {0, 9}}).error() == ProofError::VerificationError);
  Statement swapped = *s;
  std::swap(swapped.commitments[0], swapped.commitments[1]);
  CHECK(verify_bounded(swapped, bounds).error() == ProofError::VerificationError);
  // The label carries every value's bounds.
  CHECK(bounded_label("L", bounds) == "L bounds=40..50,0..10");
  CHECK(bounded_label("L", std::vector<ValueBounds>{{3, std::nullopt}}) == "L bounds=3..");
}

TEST_CASE("bad bounds and values outside them are refused before anything is proved") {
  SystemRandom rng;
  const Scalar gamma = Scalar::random(rng);
  const uint64_t v = 20;
  CHECK(check_bounds(std::vector<ValueBounds>{{10, 9}}, 64).error() == ProofError::InvalidBounds);
  CHECK(bits_covering(std::vector<ValueBounds>{{10, 9}}).error() == ProofError::InvalidBounds);
  CHECK(bits_covering(std::vector<ValueBounds>{{0, std::nullopt}, {10, 9}}).error() == ProofError::InvalidBounds);
  CHECK(check_bounds(std::vector<ValueBounds>{{0, 256}}, 8).error() == ProofError::InvalidBounds);
  CHECK(check_bounds(std::vector<ValueBounds>{{0, 255}}, 8).ok());
  CHECK(check_bounds(std::vector<ValueBounds>{{0, 255}}, 12).error() == ProofError::InvalidBitsize);
  CHECK(bounded_witness({&v, 1}, {&gamma, 1}, std::vector<ValueBounds>{{21, 30}}, 8).error() ==
        ProofError::ValueOutOfBounds);
  CHECK(bounded_witness({&v, 1}, {&gamma, 1}, std::vector<ValueBounds>{{0, 19}}, 8).error() ==
        ProofError::ValueOutOfBounds);
  CHECK(bounded_witness({&v, 1}, {&gamma, 1}, std::vector<ValueBounds>{{21, std::nullopt}}, 64).error() ==
        ProofError::ValueOutOfBounds);
  CHECK(bounded_witness({&v, 1}, {&gamma, 1}, std::vector<ValueBounds>{}, 8).error() == ProofError::InvalidBounds);
  // A minimum alone with n too small for v - min: the range proof's own check refuses it.
  const std::vector<uint64_t> big{1000};
  CHECK(prove_bounded(big, std::vector<ValueBounds>{{0, std::nullopt}}, 8).error() == ProofError::ValueOutOfRange);
  // A commitment that is not an encoding is a format error on the verifier's side.
  CompressedRistretto bad;
  bad.bytes.fill(0xff);
  CHECK(bounded_commitments(PedersenGens(), {&bad, 1}, std::vector<ValueBounds>{{0, 1}}).error() ==
        ProofError::FormatError);
}
