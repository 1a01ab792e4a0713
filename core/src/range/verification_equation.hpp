// The verification equation of one range proof, before any point multiplication: the scalars of
// the fixed generators (B, B̃, the aggregated G and H) and the proof's own points with their
// scalars; the proof is valid iff their multiscalar sum is the identity. A single
// verification evaluates it directly; batch verification adds many, each weighted by a
// random scalar, and evaluates the sum once.
#pragma once

#include <optional>
#include <vector>

#include "bp/range_proof.hpp"
#include "proof/generator_sum.hpp"

namespace bp::detail {

struct VerificationEquation {
  size_t n = 0, m = 0;
  Scalar B, B_blinding;
  std::vector<Scalar> G, H;  // n·m each: party j's generator i at j·n + i
  std::vector<Scalar> scalars;
  std::vector<RistrettoPoint> points;  // the proof's points and the commitments, decoded
};

// Appends the points an equation multiplies, in its order: A, S, T_1, T_2, the L_k, the R_k,
// then the commitments. Batch verification decodes many proofs' lists in one call.
void append_equation_points(const RangeProof& proof, std::span<const CompressedRistretto> commitments,
                            std::vector<CompressedRistretto>& out);

// Runs the transcript and decodes every point; fails with the reference's error kinds.
// Every scalar comes out multiplied by `weight` (batch verification's random weight): folded
// into the few factors the scalars are built from, that costs about 2·lg(nm) + 8
// multiplications instead of 2nm + 2lg(nm) + m + 6 afterwards. `decoded`, when not empty,
// is append_equation_points' list already decoded (the caller decoded many proofs' points
// together, so that every vector exponentiation is full); otherwise the points decode here.
Result<VerificationEquation> verification_equation(const RangeProof& proof, const BulletproofGens& bp_gens,
                                                   Transcript& transcript,
                                                   std::span<const CompressedRistretto> commitments, size_t n,
                                                   const Scalar& weight = Scalar::one(),
                                                   std::span<const std::optional<RistrettoPoint>> decoded = {});

// verification_equation in three steps, so that a batch of proofs can share one inversion:
// the transcript's challenges; the values to invert (the inner product's u_k, then y); and
// the equation from the challenges, those values' inverses, the weight and the random c
// that folds the equation's two parts into one.
struct EquationChallenges {
  size_t n = 0, m = 0;
  Scalar y, z, x, w;
  std::vector<Scalar> u;
};
Result<EquationChallenges> equation_challenges(const RangeProof& proof, const BulletproofGens& bp_gens,
                                               Transcript& transcript, std::span<const CompressedRistretto> commitments,
                                               size_t n);
void append_values_to_invert(const EquationChallenges& ch, std::vector<Scalar>& out);
Result<VerificationEquation> equation_from_challenges(const RangeProof& proof,
                                                      std::span<const CompressedRistretto> commitments,
                                                      const EquationChallenges& ch, std::span<const Scalar> inverses,
                                                      const Scalar& weight, const Scalar& c,
                                                      std::span<const std::optional<RistrettoPoint>> decoded = {});

}  // namespace bp::detail
