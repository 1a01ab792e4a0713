// What the R1CS prover and verifier share: the constraints in the order they were added, and
// their flattening under the challenge z (VECTORS.md, "Prover", step 7).
#pragma once

#include <vector>

#include "bp/r1cs.hpp"

namespace bp::detail {

struct ConstraintList {
  std::vector<LinearCombination> constraints;
  std::vector<RandomizedConstraints> deferred;  // the second phase's callbacks, in order
  size_t phase_one = 0;                         // constraints added before the second phase
  bool in_phase_two = false;
  std::optional<size_t> pending_multiplier;  // the multiplier whose right wire allocate fills next

  R1CSMetrics metrics(size_t multipliers) const;
};

// The multiplier bookkeeping every system shares (the prover's, the verifier's and the
// multiparty replay's), so that all three number variables and order constraints alike; each
// system adds only what it holds (values, owners).
//
// multiply: the new multiplier's left and right wires are constrained to the two combinations.
inline MultiplierVariables constrain_multiplier_inputs(ConstraintSystem& cs, const MultiplierVariables& vars,
                                                       LinearCombination left, LinearCombination right) {
  left -= vars.left;
  right -= vars.right;
  cs.constrain(std::move(left));
  cs.constrain(std::move(right));
  return vars;
}
// allocate: a call opens a multiplier (`open` pushes one; its left wire is the variable) and
// the next call fills that multiplier's right wire (`fill(i)`), as the reference pairs them.
template <class Open, class Fill>
Variable allocate_wire(ConstraintList& list, Open open, Fill fill) {
  auto& pending = list.pending_multiplier;
  if (!pending) {
    const MultiplierVariables vars = open();
    pending = vars.left.index;
    return vars.left;
  }
  const size_t i = *pending;
  pending.reset();
  fill(i);
  return Variable{Variable::Kind::MultiplierRight, i};
}

// Constraint q weighs z^(q+1): w_L[i] = Σ_q z^(q+1)·coef_q(L_i) (likewise w_R, w_O),
// w_V[j] = −Σ_q z^(q+1)·coef_q(V_j), w_c = −Σ_q z^(q+1)·coef_q(1).
struct FlattenedConstraints {
  std::vector<Scalar> w_L, w_R, w_O, w_V;
  Scalar w_c;
};
// Nothing when a constraint names a variable the system does not have.
std::optional<FlattenedConstraints> flatten(const std::vector<LinearCombination>& constraints, const Scalar& z,
                                            size_t multipliers, size_t commitments);
// Whether every variable of lc exists in a system of this size.
bool names_known_variables(const LinearCombination& lc, size_t multipliers, size_t commitments);

// The domain separators of the reference's transcript protocol for R1CS.
void r1cs_domain_sep(Transcript& t);
void r1cs_one_phase_domain_sep(Transcript& t);
void r1cs_two_phase_domain_sep(Transcript& t);

// The generators of gadget-list proofs: B, B̃, and G, H of a capacity, each built once per
// process and kept.
const PedersenGens& r1cs_pedersen();
const BulletproofGens& r1cs_generators(size_t capacity);

// 1, x, x², ...: the first n powers.
std::vector<Scalar> powers(const Scalar& x, size_t n);
size_t next_power_of_two(size_t n);  // at least 1

// The second phase's view of a prover's or verifier's system: the same system, plus
// challenges from its transcript.
class RandomizingSystem final : public RandomizedConstraintSystem {
 public:
  RandomizingSystem(ConstraintSystem& system, Transcript& transcript) : system_(system), transcript_(transcript) {}
  MultiplierVariables multiply(LinearCombination l, LinearCombination r) override {
    return system_.multiply(std::move(l), std::move(r));
  }
  Result<Variable, R1CSError> allocate(std::optional<Scalar> value) override { return system_.allocate(value); }
  Result<MultiplierVariables, R1CSError> allocate_multiplier(std::optional<std::pair<Scalar, Scalar>> in) override {
    return system_.allocate_multiplier(in);
  }
  void constrain(LinearCombination lc) override { system_.constrain(std::move(lc)); }
  R1CSMetrics metrics() const override { return system_.metrics(); }
  Scalar challenge_scalar(std::string_view label) override;

 private:
  ConstraintSystem& system_;
  Transcript& transcript_;
};

// Ends the first phase (after A_I1, A_O1, S1 are in the transcript) and runs the second: its
// separator, "r1cs-1phase" or "r1cs-2phase", then every callback in order on `system`.
Result<Ok, R1CSError> run_second_phase(ConstraintList& list, ConstraintSystem& system, Transcript& transcript);

}  // namespace bp::detail
