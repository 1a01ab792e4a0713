// The R1CS prover (VECTORS.md, "Prover"): the reference's order of transcript operations and
// random draws, so that the same witness, transcript and outside randomness give the same bytes.
// The witness is secret: commitments to it use the constant-time multiscalar multiplication,
// and every wire, value and blinding is wiped with the prover.
#include <sodium.h>

#include <array>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/r1cs.hpp"
#include "bp/transcript_protocol.hpp"
#include "arith/ctime.hpp"
#include "r1cs/constraints.hpp"

namespace bp {
namespace detail {

class R1CSProverState {
 public:
  R1CSProverState(const PedersenGens& pc, Transcript& t) : pc_gens(pc), transcript(t) {}
  ~R1CSProverState() {
    for (auto* secrets : {&v, &v_blinding, &a_L, &a_R, &a_O})
      for (auto& s : *secrets) s.wipe();
  }

  // A combination's value on the witness; a variable the system does not have marks the
  // system as broken (prove then refuses) and counts as zero.
  Scalar eval(const LinearCombination& lc) {
    if (!names_known_variables(lc, a_L.size(), v.size())) {
      unknown_variable = true;
      return Scalar::zero();
    }
    Scalar sum;
    for (const auto& [var, c] : lc.terms()) {
      switch (var.kind) {
        case Variable::Kind::Committed: sum += c * v[var.index]; break;
        case Variable::Kind::MultiplierLeft: sum += c * a_L[var.index]; break;
        case Variable::Kind::MultiplierRight: sum += c * a_R[var.index]; break;
        case Variable::Kind::MultiplierOutput: sum += c * a_O[var.index]; break;
        case Variable::Kind::One: sum += c; break;
      }
    }
    return sum;
  }

  MultiplierVariables push_multiplier(const Scalar& l, const Scalar& r) {
    const size_t i = a_L.size();
    a_L.push_back(l);
    a_R.push_back(r);
    a_O.push_back(l * r);
    return {{Variable::Kind::MultiplierLeft, i},
            {Variable::Kind::MultiplierRight, i},
            {Variable::Kind::MultiplierOutput, i}};
  }

  const PedersenGens& pc_gens;
  Transcript& transcript;
  std::vector<Scalar> v, v_blinding, a_L, a_R, a_O;
  ConstraintList list;
  bool unknown_variable = false;
};

namespace {

// blinding·B̃ + ⟨on_G, G⟩ + ⟨on_H, H⟩ for secret scalars: constant time, on the generators'
// precomputed constant-time tables.
CompressedRistretto commit_secret(const PedersenGens& pc, const Scalar& blinding, std::span<const Scalar> on_G,
                                  std::span<const CtBaseTable* const> G, std::span<const Scalar> on_H,
                                  std::span<const CtBaseTable* const> H) {
  if (on_G.empty() && on_H.empty()) {  // no multipliers in this phase: the comb, no doublings
    const CtCombTable* comb = &pc.B_blinding_ct_comb();
    return multiscalar_mul(std::span<const Scalar>(&blinding, 1), std::span<const CtCombTable* const>(&comb, 1))
        .compress();
  }
  std::vector<Scalar> scalars;
  std::vector<const CtBaseTable*> tables;
  scalars.reserve(1 + on_G.size() + on_H.size());
  tables.reserve(scalars.capacity());
  scalars.push_back(blinding);
  tables.push_back(&pc.B_blinding_ct_table());
  scalars.insert(scalars.end(), on_G.begin(), on_G.end());
  tables.insert(tables.end(), G.begin(), G.begin() + static_cast<std::ptrdiff_t>(on_G.size()));
  scalars.insert(scalars.end(), on_H.begin(), on_H.end());
  tables.insert(tables.end(), H.begin(), H.begin() + static_cast<std::ptrdiff_t>(on_H.size()));
  const auto out = multiscalar_mul(scalars, tables).compress();
  for (auto& s : scalars) s.wipe();
  return out;
}

std::vector<Scalar> draw(RandomSource& rng, size_t n) {
  std::vector<Scalar> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(Scalar::random(rng));
  return out;
}

void wipe_all(std::initializer_list<std::vector<Scalar>*> vectors) {
  for (auto* v : vectors)
    for (auto& s : *v) s.wipe();
}

}  // namespace
}  // namespace detail

R1CSProver::R1CSProver(const PedersenGens& pc_gens, Transcript& transcript)
    : s_(std::make_unique<detail::R1CSProverState>(pc_gens, transcript)) {
  detail::r1cs_domain_sep(transcript);
}
R1CSProver::~R1CSProver() = default;
R1CSProver::R1CSProver(R1CSProver&&) noexcept = default;

std::pair<CompressedRistretto, Variable> R1CSProver::commit(const Scalar& v, const Scalar& v_blinding) {
  const size_t j = s_->v.size();
  s_->v.push_back(v);
  s_->v_blinding.push_back(v_blinding);
  const auto V = s_->pc_gens.commit(v, v_blinding).compress();
  detail::declassify(&V, sizeof V);  // the verifier holds it
  append_point(s_->transcript, "V", V);
  return {V, Variable{Variable::Kind::Committed, j}};
}

MultiplierVariables R1CSProver::multiply(LinearCombination left, LinearCombination right) {
  const Scalar l = s_->eval(left), r = s_->eval(right);
  return detail::constrain_multiplier_inputs(*this, s_->push_multiplier(l, r), std::move(left), std::move(right));
}

Result<Variable, R1CSError> R1CSProver::allocate(std::optional<Scalar> value) {
  if (!value) return R1CSError{R1CSErrorKind::MissingAssignment, {}};
  return detail::allocate_wire(
      s_->list, [&] { return s_->push_multiplier(*value, Scalar::zero()); },
      [&](size_t i) {
        s_->a_R[i] = *value;
        s_->a_O[i] = s_->a_L[i] * *value;
      });
}

Result<MultiplierVariables, R1CSError> R1CSProver::allocate_multiplier(
    std::optional<std::pair<Scalar, Scalar>> inputs) {
  if (!inputs) return R1CSError{R1CSErrorKind::MissingAssignment, {}};
  return s_->push_multiplier(inputs->first, inputs->second);
}

void R1CSProver::constrain(LinearCombination lc) {
  if (!detail::names_known_variables(lc, s_->a_L.size(), s_->v.size())) s_->unknown_variable = true;
  s_->list.constraints.push_back(std::move(lc));
}

R1CSMetrics R1CSProver::metrics() const { return s_->list.metrics(s_->a_L.size()); }

void R1CSProver::specify_randomized_constraints(RandomizedConstraints callback) {
  s_->list.deferred.push_back(std::move(callback));
}

Result<R1CSProof, R1CSError> R1CSProver::prove(const BulletproofGens& bp_gens) && {
  SystemRandom rng;
  return std::move(*this).prove_with_rng(bp_gens, rng);
}

Result<R1CSProof, R1CSError> R1CSProver::prove_with_rng(const BulletproofGens& bp_gens, RandomSource& outside) && {
  using detail::draw;
  auto& s = *s_;
  Transcript& transcript = s.transcript;
  const PedersenGens& pc = s.pc_gens;
  transcript.append_u64("m", s.v.size());
  // The blindings come from the transcript, keyed with the witness and outside randomness.
  auto rng = [&] {
    auto builder = transcript.build_rng();
    for (const auto& b : s.v_blinding) {
      const auto bytes = b.to_bytes();
      builder.rekey_with_witness_bytes("v_blinding", bytes);
    }
    return std::move(builder).finalize(outside);
  }();

  const size_t n1 = s.a_L.size();
  if (bp_gens.gens_capacity() < n1) return R1CSError{R1CSErrorKind::InvalidGeneratorsLength, {}};
  const auto G_tables = bp_gens.G_ct_tables(0, bp_gens.gens_capacity());
  const auto H_tables = bp_gens.H_ct_tables(0, bp_gens.gens_capacity());
  const std::span<const CtBaseTable*const> G_all(G_tables), H_all(H_tables);

  Scalar i_blinding1 = Scalar::random(rng), o_blinding1 = Scalar::random(rng), s_blinding1 = Scalar::random(rng);
  std::vector<Scalar> s_L1 = draw(rng, n1), s_R1 = draw(rng, n1);
  const auto A_I1 = detail::commit_secret(pc, i_blinding1, s.a_L, G_all, s.a_R, H_all);
  const auto A_O1 = detail::commit_secret(pc, o_blinding1, s.a_O, G_all, {}, H_all);
  const auto S1 = detail::commit_secret(pc, s_blinding1, s_L1, G_all, s_R1, H_all);
  // What the proof shows is public from here on (tests/ctime marks the witness secret).
  for (const auto* sent : {&A_I1, &A_O1, &S1}) detail::declassify(sent, sizeof *sent);
  append_point(transcript, "A_I1", A_I1);
  append_point(transcript, "A_O1", A_O1);
  append_point(transcript, "S1", S1);

  // The second phase: its callbacks see the challenges drawn from here on.
  if (auto done = detail::run_second_phase(s.list, *this, transcript); !done) return done.error();
  if (s.unknown_variable)
    return R1CSError{R1CSErrorKind::GadgetError, "a constraint names a variable the system does not have"};

  const size_t n = s.a_L.size(), n2 = n - n1, padded_n = detail::next_power_of_two(n);
  if (bp_gens.gens_capacity() < padded_n) return R1CSError{R1CSErrorKind::InvalidGeneratorsLength, {}};

  Scalar i_blinding2, o_blinding2, s_blinding2;
  if (n2 > 0) {
    i_blinding2 = Scalar::random(rng);
    o_blinding2 = Scalar::random(rng);
    s_blinding2 = Scalar::random(rng);
  }
  std::vector<Scalar> s_L2 = draw(rng, n2), s_R2 = draw(rng, n2);
  CompressedRistretto A_I2, A_O2, S2;  // the identity without second-phase multipliers
  if (n2 > 0) {
    const auto tail = [&](const std::vector<Scalar>& v) { return std::span<const Scalar>(v).subspan(n1); };
    const auto G2 = G_all.subspan(n1), H2 = H_all.subspan(n1);
    A_I2 = detail::commit_secret(pc, i_blinding2, tail(s.a_L), G2, tail(s.a_R), H2);
    A_O2 = detail::commit_secret(pc, o_blinding2, tail(s.a_O), G2, {}, H2);
    S2 = detail::commit_secret(pc, s_blinding2, s_L2, G2, s_R2, H2);
  }
  for (const auto* sent : {&A_I2, &A_O2, &S2}) detail::declassify(sent, sizeof *sent);
  append_point(transcript, "A_I2", A_I2);
  append_point(transcript, "A_O2", A_O2);
  append_point(transcript, "S2", S2);

  const Scalar y = challenge_scalar(transcript, "y");
  const Scalar z = challenge_scalar(transcript, "z");
  auto flat = detail::flatten(s.list.constraints, z, n, s.v.size());
  if (!flat) return R1CSError{R1CSErrorKind::GadgetError, "a constraint names a variable the system does not have"};
  const auto& w = *flat;

  // l(X) = l1·X + l2·X² + l3·X³ and r(X) = r0 + r1·X + r3·X³ over the n multipliers.
  const auto exp_y_inv = detail::powers(y.invert(), padded_n);
  std::vector<Scalar> l1(n), l2(n), l3(n), r0(n), r1(n), r3(n);
  Scalar exp_y = Scalar::one();
  for (size_t i = 0; i < n; ++i) {
    const Scalar& sl = i < n1 ? s_L1[i] : s_L2[i - n1];
    const Scalar& sr = i < n1 ? s_R1[i] : s_R2[i - n1];
    l1[i] = s.a_L[i] + exp_y_inv[i] * w.w_R[i];
    l2[i] = s.a_O[i];
    l3[i] = sl;
    r0[i] = w.w_O[i] - exp_y;
    r1[i] = exp_y * s.a_R[i] + w.w_L[i];
    r3[i] = exp_y * sr;
    exp_y *= y;
  }
  const Scalar t1 = inner_product(l1, r0), t2 = inner_product(l1, r1) + inner_product(l2, r0),
               t3 = inner_product(l2, r1) + inner_product(l3, r0), t4 = inner_product(l1, r3) + inner_product(l3, r1),
               t5 = inner_product(l2, r3), t6 = inner_product(l3, r3);

  Scalar tau1 = Scalar::random(rng), tau3 = Scalar::random(rng), tau4 = Scalar::random(rng), tau5 = Scalar::random(rng),
         tau6 = Scalar::random(rng);
  R1CSProof proof;
  proof.A_I1 = A_I1;
  proof.A_O1 = A_O1;
  proof.S1 = S1;
  proof.A_I2 = A_I2;
  proof.A_O2 = A_O2;
  proof.S2 = S2;
  const std::array<RistrettoPoint, 5> T{pc.commit(t1, tau1), pc.commit(t3, tau3), pc.commit(t4, tau4),
                                        pc.commit(t5, tau5), pc.commit(t6, tau6)};
  std::array<CompressedRistretto, 5> encoded;
  RistrettoPoint::compress_batch(T, encoded);  // one exponentiation for the five
  proof.T_1 = encoded[0];
  proof.T_3 = encoded[1];
  proof.T_4 = encoded[2];
  proof.T_5 = encoded[3];
  proof.T_6 = encoded[4];
  for (const auto* sent : {&proof.T_1, &proof.T_3, &proof.T_4, &proof.T_5, &proof.T_6})
    detail::declassify(sent, sizeof *sent);
  append_point(transcript, "T_1", proof.T_1);
  append_point(transcript, "T_3", proof.T_3);
  append_point(transcript, "T_4", proof.T_4);
  append_point(transcript, "T_5", proof.T_5);
  append_point(transcript, "T_6", proof.T_6);

  const Scalar u = challenge_scalar(transcript, "u");
  const Scalar x = challenge_scalar(transcript, "x");
  Scalar tau2;
  for (size_t j = 0; j < s.v.size(); ++j) tau2 += w.w_V[j] * s.v_blinding[j];
  const Scalar x2 = x * x, x3 = x2 * x, x4 = x3 * x, x5 = x4 * x, x6 = x5 * x;
  proof.t_x = t1 * x + t2 * x2 + t3 * x3 + t4 * x4 + t5 * x5 + t6 * x6;
  proof.t_x_blinding = tau1 * x + tau2 * x2 + tau3 * x3 + tau4 * x4 + tau5 * x5 + tau6 * x6;
  const Scalar i_blinding = i_blinding1 + u * i_blinding2, o_blinding = o_blinding1 + u * o_blinding2,
               s_blinding = s_blinding1 + u * s_blinding2;
  proof.e_blinding = x * (i_blinding + x * (o_blinding + x * s_blinding));

  std::vector<Scalar> l_vec(padded_n), r_vec(padded_n);
  for (size_t i = 0; i < n; ++i) {
    l_vec[i] = l1[i] * x + l2[i] * x2 + l3[i] * x3;
    r_vec[i] = r0[i] + r1[i] * x + r3[i] * x3;
  }
  for (size_t i = n; i < padded_n; ++i) {
    r_vec[i] = -exp_y;
    exp_y *= y;
  }
  // The blinded vectors and scalars the proof shows.
  for (const auto* sent : {&proof.t_x, &proof.t_x_blinding, &proof.e_blinding}) detail::declassify(sent, sizeof *sent);
  detail::declassify(l_vec.data(), l_vec.size() * sizeof(Scalar));
  detail::declassify(r_vec.data(), r_vec.size() * sizeof(Scalar));
  append_scalar(transcript, "t_x", proof.t_x);
  append_scalar(transcript, "t_x_blinding", proof.t_x_blinding);
  append_scalar(transcript, "e_blinding", proof.e_blinding);
  const Scalar w_challenge = challenge_scalar(transcript, "w");
  const RistrettoPoint Q = pc.B * w_challenge;

  std::vector<Scalar> G_factors(padded_n), H_factors(padded_n);
  for (size_t i = 0; i < padded_n; ++i) {
    G_factors[i] = i < n1 ? Scalar::one() : u;
    H_factors[i] = exp_y_inv[i] * G_factors[i];
  }
  proof.ipp_proof = InnerProductProof::create(transcript, Q, G_factors, H_factors, bp_gens.G_tables(0, padded_n),
                                              bp_gens.H_tables(0, padded_n), std::move(l_vec), std::move(r_vec));

  detail::wipe_all({&s_L1, &s_R1, &s_L2, &s_R2, &l1, &l2, &l3, &r0, &r1, &r3});
  for (auto* secret : {&i_blinding1, &o_blinding1, &s_blinding1, &i_blinding2, &o_blinding2, &s_blinding2, &tau1, &tau2,
                       &tau3, &tau4, &tau5, &tau6})
    secret->wipe();
  return proof;
}

}  // namespace bp
