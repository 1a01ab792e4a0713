// The R1CS verifier (VECTORS.md, "Prover", last paragraph): the prover's transcript replayed,
// then one multiscalar multiplication that is the identity exactly when the proof holds.
// Variable time: everything here is public.
#include "bp/msm.hpp"
#include "bp/r1cs.hpp"
#include "bp/transcript_protocol.hpp"
#include "r1cs_constraints.hpp"

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

namespace {

class RandomizingVerifier final : public RandomizedConstraintSystem {
 public:
  RandomizingVerifier(R1CSVerifier& verifier, Transcript& transcript) : verifier_(verifier), transcript_(transcript) {}
  MultiplierVariables multiply(LinearCombination l, LinearCombination r) override {
    return verifier_.multiply(std::move(l), std::move(r));
  }
  Result<Variable, R1CSError> allocate(std::optional<Scalar> value) override { return verifier_.allocate(value); }
  Result<MultiplierVariables, R1CSError> allocate_multiplier(std::optional<std::pair<Scalar, Scalar>> in) override {
    return verifier_.allocate_multiplier(in);
  }
  void constrain(LinearCombination lc) override { verifier_.constrain(std::move(lc)); }
  R1CSMetrics metrics() const override { return verifier_.metrics(); }
  Scalar challenge_scalar(std::string_view label) override { return bp::challenge_scalar(transcript_, label); }

 private:
  R1CSVerifier& verifier_;
  Transcript& transcript_;
};

size_t next_power_of_two(size_t n) {
  size_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace
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
  const auto vars = s_->push_multiplier();
  left -= vars.left;
  right -= vars.right;
  constrain(std::move(left));
  constrain(std::move(right));
  return vars;
}

Result<Variable, R1CSError> R1CSVerifier::allocate(std::optional<Scalar>) {
  auto& pending = s_->list.pending_multiplier;
  if (!pending) {
    const auto vars = s_->push_multiplier();
    pending = vars.left.index;
    return vars.left;
  }
  const size_t i = *pending;
  pending.reset();
  return Variable{Variable::Kind::MultiplierRight, i};
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
  const R1CSError failed{R1CSErrorKind::VerificationError, {}};
  auto& s = *s_;
  Transcript& transcript = s.transcript;
  transcript.append_u64("m", s.V.size());
  const size_t n1 = s.multipliers;
  if (!validate_and_append_point(transcript, "A_I1", proof.A_I1) ||
      !validate_and_append_point(transcript, "A_O1", proof.A_O1) ||
      !validate_and_append_point(transcript, "S1", proof.S1))
    return failed;

  s.list.pending_multiplier.reset();
  s.list.phase_one = s.list.constraints.size();
  s.list.in_phase_two = true;
  if (s.list.deferred.empty()) {
    detail::r1cs_one_phase_domain_sep(transcript);
  } else {
    detail::r1cs_two_phase_domain_sep(transcript);
    auto callbacks = std::move(s.list.deferred);
    s.list.deferred.clear();
    detail::RandomizingVerifier phase_two(*this, transcript);
    for (auto& callback : callbacks)
      if (auto done = callback(phase_two); !done) return done.error();
  }

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

  std::vector<Scalar> scalars;
  std::vector<CompressedRistretto> compressed;
  scalars.reserve(13 + s.V.size() + 2 * padded_n + 2 * proof.ipp_proof.L_vec.size());
  const auto add = [&](const Scalar& sc, const CompressedRistretto& p) {
    scalars.push_back(sc);
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

  std::vector<RistrettoPoint> points;
  points.reserve(compressed.size() + 2 + 2 * padded_n);
  for (const auto& c : compressed) {
    auto p = RistrettoPoint::decompress(c);
    if (!p) return failed;
    points.push_back(*p);
  }
  scalars.push_back(w * (proof.t_x - a * b) + r * (xx * (flat->w_c + delta) - proof.t_x));
  points.push_back(pc_gens.B);
  scalars.push_back(-proof.e_blinding - r * proof.t_x_blinding);
  points.push_back(pc_gens.B_blinding);
  const auto G = bp_gens.G(0, padded_n), H = bp_gens.H(0, padded_n);
  for (size_t i = 0; i < padded_n; ++i) {
    const Scalar u_or_1 = i < n1 ? Scalar::one() : u;
    scalars.push_back(u_or_1 * (x * yneg_w_R[i] - a * ipp->s[i]));
    points.push_back(G[i]);
  }
  for (size_t i = 0; i < padded_n; ++i) {
    const Scalar u_or_1 = i < n1 ? Scalar::one() : u;
    const Scalar w_L = i < n ? flat->w_L[i] : Scalar::zero();
    const Scalar w_O = i < n ? flat->w_O[i] : Scalar::zero();
    scalars.push_back(u_or_1 * (y_inv[i] * (x * w_L + w_O - b * ipp->s[padded_n - 1 - i]) - Scalar::one()));
    points.push_back(H[i]);
  }
  if (!multiscalar_mul_vartime(scalars, points).is_identity()) return failed;
  return Ok{};
}

}  // namespace bp
