// The R1CS verifier (VECTORS.md, "Prover", last paragraph): the prover's transcript replayed,
// then one multiscalar multiplication that is the identity exactly when the proof holds.
// Variable time: everything here is public.
#include <algorithm>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/r1cs.hpp"
#include "bp/transcript_protocol.hpp"
#include "r1cs/constraints.hpp"
#include "proof/generator_sum.hpp"

namespace bp {
namespace detail {

class R1CSVerifierState {
 public:
  explicit R1CSVerifierState(Transcript& t) : transcript(t) {}
  Transcript& transcript;
  std::vector<CompressedRistretto> V;
  size_t multipliers = 0;
  ConstraintList list;

  MultiplierVariables push_multiplier() {
    const size_t i = multipliers++;
    return {{Variable::Kind::MultiplierLeft, i},
            {Variable::Kind::MultiplierRight, i},
            {Variable::Kind::MultiplierOutput, i}};
  }
};

}  // namespace detail

R1CSVerifier::R1CSVerifier(Transcript& transcript) : s_(std::make_unique<detail::R1CSVerifierState>(transcript)) {
  detail::r1cs_domain_sep(transcript);
}
R1CSVerifier::~R1CSVerifier() = default;
R1CSVerifier::R1CSVerifier(R1CSVerifier&&) noexcept = default;

Variable R1CSVerifier::commit(const CompressedRistretto& V) {
  const size_t j = s_->V.size();
  s_->V.push_back(V);
  append_point(s_->transcript, "V", V);
  return Variable{Variable::Kind::Committed, j};
}

MultiplierVariables R1CSVerifier::multiply(LinearCombination left, LinearCombination right) {
  return detail::constrain_multiplier_inputs(*this, s_->push_multiplier(), std::move(left), std::move(right));
}

Result<Variable, R1CSError> R1CSVerifier::allocate(std::optional<Scalar>) {
  return detail::allocate_wire(
      s_->list, [&] { return s_->push_multiplier(); }, [](size_t) {});
}

Result<MultiplierVariables, R1CSError> R1CSVerifier::allocate_multiplier(std::optional<std::pair<Scalar, Scalar>>) {
  return s_->push_multiplier();
}

void R1CSVerifier::constrain(LinearCombination lc) { s_->list.constraints.push_back(std::move(lc)); }

R1CSMetrics R1CSVerifier::metrics() const { return s_->list.metrics(s_->multipliers); }

void R1CSVerifier::specify_randomized_constraints(RandomizedConstraints callback) {
  s_->list.deferred.push_back(std::move(callback));
}

Result<Ok, R1CSError> R1CSVerifier::verify(const R1CSProof& proof, const PedersenGens& pc_gens,
                                           const BulletproofGens& bp_gens) && {
  auto eq = std::move(*this).equation(proof, bp_gens);
  if (!eq) return eq.error();
  if (!verify_r1cs_batch({&*eq, 1}, pc_gens, bp_gens).ok()) return R1CSError{R1CSErrorKind::VerificationError, {}};
  return Ok{};
}

Result<R1CSEquation, R1CSError> R1CSVerifier::equation(const R1CSProof& proof, const BulletproofGens& bp_gens) && {
  const R1CSError failed{R1CSErrorKind::VerificationError, {}};
  auto& s = *s_;
  Transcript& transcript = s.transcript;
  transcript.append_u64("m", s.V.size());
  const size_t n1 = s.multipliers;
  if (!validate_and_append_point(transcript, "A_I1", proof.A_I1) ||
      !validate_and_append_point(transcript, "A_O1", proof.A_O1) ||
      !validate_and_append_point(transcript, "S1", proof.S1))
    return failed;

  if (auto done = detail::run_second_phase(s.list, *this, transcript); !done) return done.error();

  const size_t n = s.multipliers, padded_n = detail::next_power_of_two(n);
  if (bp_gens.gens_capacity() < padded_n) return R1CSError{R1CSErrorKind::InvalidGeneratorsLength, {}};
  append_point(transcript, "A_I2", proof.A_I2);
  append_point(transcript, "A_O2", proof.A_O2);
  append_point(transcript, "S2", proof.S2);
  const Scalar y = challenge_scalar(transcript, "y");
  const Scalar z = challenge_scalar(transcript, "z");
  for (const auto& [label, T] : {std::pair<const char*, const CompressedRistretto*>{"T_1", &proof.T_1},
                                 {"T_3", &proof.T_3},
                                 {"T_4", &proof.T_4},
                                 {"T_5", &proof.T_5},
                                 {"T_6", &proof.T_6}})
    if (!validate_and_append_point(transcript, label, *T)) return failed;
  const Scalar u = challenge_scalar(transcript, "u");
  const Scalar x = challenge_scalar(transcript, "x");
  append_scalar(transcript, "t_x", proof.t_x);
  append_scalar(transcript, "t_x_blinding", proof.t_x_blinding);
  append_scalar(transcript, "e_blinding", proof.e_blinding);
  const Scalar w = challenge_scalar(transcript, "w");

  auto flat = detail::flatten(s.list.constraints, z, n, s.V.size());
  if (!flat) return R1CSError{R1CSErrorKind::GadgetError, "a constraint names a variable the system does not have"};
  auto ipp = proof.ipp_proof.verification_scalars(padded_n, transcript, y);
  if (!ipp) return failed;
  const Scalar& a = proof.ipp_proof.a;
  const Scalar& b = proof.ipp_proof.b;
  const auto y_inv = detail::powers(ipp->extra_inv, padded_n);

  Scalar delta;
  std::vector<Scalar> yneg_w_R(padded_n);
  for (size_t i = 0; i < n; ++i) {
    yneg_w_R[i] = flat->w_R[i] * y_inv[i];
    delta += yneg_w_R[i] * flat->w_L[i];
  }

  // A random weight r for the t(x) check, from libsodium: the verdict does not depend on it.
  SystemRandom rng;
  const Scalar r = Scalar::random(rng);
  const Scalar xx = x * x, rxx = r * xx, xxx = x * xx;

  R1CSEquation eq;
  std::vector<CompressedRistretto> compressed;
  eq.scalars.reserve(11 + s.V.size() + 2 * proof.ipp_proof.L_vec.size());
  const auto add = [&](const Scalar& sc, const CompressedRistretto& p) {
    eq.scalars.push_back(sc);
    compressed.push_back(p);
  };
  add(x, proof.A_I1);
  add(xx, proof.A_O1);
  add(xxx, proof.S1);
  add(u * x, proof.A_I2);
  add(u * xx, proof.A_O2);
  add(u * xxx, proof.S2);
  for (size_t j = 0; j < s.V.size(); ++j) add(flat->w_V[j] * rxx, s.V[j]);
  add(r * x, proof.T_1);
  add(rxx * x, proof.T_3);
  add(rxx * xx, proof.T_4);
  add(rxx * xxx, proof.T_5);
  add(rxx * xx * xx, proof.T_6);
  for (size_t k = 0; k < proof.ipp_proof.L_vec.size(); ++k) add(ipp->u_sq[k], proof.ipp_proof.L_vec[k]);
  for (size_t k = 0; k < proof.ipp_proof.R_vec.size(); ++k) add(ipp->u_inv_sq[k], proof.ipp_proof.R_vec[k]);
  eq.points.resize(compressed.size());
  std::vector<std::optional<RistrettoPoint>> decoded(compressed.size());
  RistrettoPoint::decompress_batch(compressed, decoded);
  for (size_t k = 0; k < decoded.size(); ++k) {
    if (!decoded[k]) return failed;
    eq.points[k] = *decoded[k];
  }
  eq.B = w * (proof.t_x - a * b) + r * (xx * (flat->w_c + delta) - proof.t_x);
  eq.B_blinding = -proof.e_blinding - r * proof.t_x_blinding;
  eq.G.resize(padded_n);
  eq.H.resize(padded_n);
  // The first phase's multipliers (i < n1) are not scaled by u: no multiplication by one.
  for (size_t i = 0; i < padded_n; ++i) {
    const Scalar w_L = i < n ? flat->w_L[i] : Scalar::zero();
    const Scalar w_O = i < n ? flat->w_O[i] : Scalar::zero();
    eq.G[i] = x * yneg_w_R[i] - a * ipp->s[i];
    eq.H[i] = y_inv[i] * (x * w_L + w_O - b * ipp->s[padded_n - 1 - i]) - Scalar::one();
    if (i >= n1) {
      eq.G[i] *= u;
      eq.H[i] *= u;
    }
  }
  return eq;
}

namespace {

// Σ_k c_k·equation_k, the generators' terms summed; one equation gets the weight 1.
bool holds(std::span<const R1CSEquation> equations, std::span<const size_t> which, const PedersenGens& pc_gens,
           const BulletproofGens& bp_gens) {
  size_t padded_n = 0, dynamic = 0;
  for (size_t k : which) {
    padded_n = std::max(padded_n, equations[k].G.size());
    dynamic += equations[k].points.size();
  }
  if (padded_n > bp_gens.gens_capacity()) return false;
  std::vector<Scalar> fixed(2 + 2 * padded_n), scalars;
  std::vector<RistrettoPoint> points;
  scalars.reserve(dynamic);
  points.reserve(dynamic);
  SystemRandom rng;
  // One equation alone takes the weight 1: its scalars as they are, no multiplications.
  const bool alone = which.size() == 1;
  for (size_t k : which) {
    const R1CSEquation& eq = equations[k];
    const Scalar c = alone ? Scalar::one() : Scalar::random(rng);
    const auto weighted = [&](const Scalar& v) { return alone ? v : c * v; };
    for (size_t i = 0; i < eq.points.size(); ++i) {
      scalars.push_back(weighted(eq.scalars[i]));
      points.push_back(eq.points[i]);
    }
    fixed[0] += weighted(eq.B);
    fixed[1] += weighted(eq.B_blinding);
    for (size_t i = 0; i < eq.G.size(); ++i) {
      fixed[2 + i] += weighted(eq.G[i]);
      fixed[2 + padded_n + i] += weighted(eq.H[i]);
    }
  }
  // The generators as the range proofs' check takes them: as plain points the first time a
  // size is checked (a party checks its one result without building 8,192 tables, 119 MiB at
  // 4,096 multipliers), through tables once the size comes again.
  const std::span<const Scalar> all(fixed);
  return detail::generator_sum_is_identity(bp_gens, pc_gens, padded_n, 1, fixed[1], fixed[0], all.subspan(2, padded_n),
                                           all.subspan(2 + padded_n, padded_n), std::move(scalars), std::move(points));
}

}  // namespace

R1CSBatchOutcome verify_r1cs_batch(std::span<const R1CSEquation> equations, const PedersenGens& pc_gens,
                                   const BulletproofGens& bp_gens) {
  R1CSBatchOutcome out;
  std::vector<size_t> all(equations.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;
  if (all.empty() || holds(equations, all, pc_gens, bp_gens)) return out;
  for (size_t k : all) {
    const size_t one[] = {k};
    if (!holds(equations, one, pc_gens, bp_gens)) out.failed.push_back(k);
  }
  return out;
}

}  // namespace bp
