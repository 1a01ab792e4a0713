// Constraint-system proofs (R1CS), as the reference's `r1cs` module builds them: the same
// generators, transcript and inner-product argument as the range proofs, and the same bytes.
//
// A statement is a rank-1 constraint system over committed variables V_j (Pedersen
// commitments the verifier holds) and multipliers: each multiplier i has three wires L_i,
// R_i, O_i with O_i = L_i·R_i, and every constraint is a linear combination of wires,
// committed variables and the constant 1 that must be zero. A gadget is a plain function that
// adds multipliers and constraints over the variables it is given (bp/r1cs_gadgets.hpp), the
// same code for the prover (which knows the values) and the verifier (which does not).
//
// A second phase lets a gadget use challenges drawn after the first phase's multipliers are
// committed (RandomizableConstraintSystem::specify_randomized_constraints): a shuffle proves
// ∏(x_i − ζ) = ∏(y_i − ζ) for a ζ the prover could not choose.
//
//   bp::Transcript t("my app");
//   bp::R1CSProver prover(pc_gens, t);
//   auto [V, v] = prover.commit(bp::Scalar::from_u64(42), blinding);
//   bp::gadgets::range(prover, v, bp::Scalar::from_u64(42), 64);
//   auto proof = std::move(prover).prove(bp_gens);           // Result<R1CSProof, R1CSError>
//
//   bp::Transcript u("my app");
//   bp::R1CSVerifier verifier(u);
//   auto w = verifier.commit(V);
//   bp::gadgets::range(verifier, w, std::nullopt, 64);
//   auto ok = std::move(verifier).verify(*proof, pc_gens, bp_gens);   // Result<Ok, R1CSError>
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bp/errors.hpp"
#include "bp/generators.hpp"
#include "bp/inner_product_proof.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"
#include "bp/transcript.hpp"

namespace bp {

enum class R1CSErrorKind {
  InvalidGeneratorsLength,  // the generators hold fewer than the padded count of multipliers
  FormatError,              // the proof bytes are malformed (length, version, non-canonical scalar)
  VerificationError,        // the proof does not verify (an identity or undecodable point included)
  MissingAssignment,        // the prover allocated a variable without its value
  GadgetError,              // a gadget refused its inputs (the detail says why)
  Unsatisfied,              // the prover's own values do not satisfy its gadget's constraints
};

struct R1CSError {
  R1CSErrorKind kind;
  std::string detail;
};
std::string_view describe(R1CSErrorKind kind);
std::string describe(const R1CSError& e);

// A variable: a committed value, one wire of a multiplier, or the constant 1.
struct Variable {
  enum class Kind : uint8_t { Committed, MultiplierLeft, MultiplierRight, MultiplierOutput, One };
  Kind kind = Kind::One;
  size_t index = 0;

  static Variable one() { return {}; }
  friend bool operator==(const Variable&, const Variable&) = default;
};

// Σ coefficient·variable. Variables and scalars convert to one; +, − and ·scalar combine them.
class LinearCombination {
 public:
  LinearCombination() = default;
  LinearCombination(Variable v) : terms_{{v, Scalar::one()}} {}         // NOLINT: a variable is 1·v
  LinearCombination(const Scalar& c) : terms_{{Variable::one(), c}} {}  // NOLINT: a constant is c·1
  LinearCombination(std::vector<std::pair<Variable, Scalar>> terms) : terms_(std::move(terms)) {}  // NOLINT

  const std::vector<std::pair<Variable, Scalar>>& terms() const { return terms_; }

  LinearCombination& operator+=(const LinearCombination& o);
  LinearCombination& operator-=(const LinearCombination& o);
  LinearCombination& operator*=(const Scalar& c);
  friend LinearCombination operator+(LinearCombination a, const LinearCombination& b) { return a += b; }
  friend LinearCombination operator-(LinearCombination a, const LinearCombination& b) { return a -= b; }
  friend LinearCombination operator*(LinearCombination a, const Scalar& c) { return a *= c; }
  friend LinearCombination operator*(const Scalar& c, LinearCombination a) { return a *= c; }
  LinearCombination operator-() const { return LinearCombination(*this) *= -Scalar::one(); }

 private:
  std::vector<std::pair<Variable, Scalar>> terms_;
};

struct MultiplierVariables {
  Variable left, right, output;
};

struct R1CSMetrics {
  size_t multipliers = 0;
  size_t constraints = 0;
  size_t phase_one_constraints = 0;
  size_t phase_two_constraints = 0;
};

// What a gadget may do: the prover's and the verifier's systems both implement it. Values are
// given as optionals: the prover needs them, the verifier has none (and ignores them).
class ConstraintSystem {
 public:
  virtual ~ConstraintSystem() = default;
  // A new multiplier whose inputs are these combinations (the prover evaluates them), and
  // the two constraints left − L and right − R.
  virtual MultiplierVariables multiply(LinearCombination left, LinearCombination right) = 0;
  // One variable: the left wire of a new multiplier, or the right wire of the one the
  // previous allocate opened (as the reference allocates).
  virtual Result<Variable, R1CSError> allocate(std::optional<Scalar> value) = 0;
  // A new multiplier with these inputs, and no constraint.
  virtual Result<MultiplierVariables, R1CSError> allocate_multiplier(
      std::optional<std::pair<Scalar, Scalar>> inputs) = 0;
  virtual void constrain(LinearCombination lc) = 0;
  virtual R1CSMetrics metrics() const = 0;
};

// The second phase: challenges from the transcript, drawn after the first phase's commitments.
class RandomizedConstraintSystem : public ConstraintSystem {
 public:
  virtual Scalar challenge_scalar(std::string_view label) = 0;
};

using RandomizedConstraints = std::function<Result<Ok, R1CSError>(RandomizedConstraintSystem&)>;

class RandomizableConstraintSystem : public ConstraintSystem {
 public:
  // Runs `callback` in the second phase, after every earlier callback.
  virtual void specify_randomized_constraints(RandomizedConstraints callback) = 0;
};

// The proof, in the reference's layout: a version byte (0: no second-phase multipliers, so
// A_I2, A_O2, S2 are the identity and omitted; 1: they follow S1), then A_I1, A_O1, S1,
// [A_I2, A_O2, S2], T_1, T_3, T_4, T_5, T_6, t_x, t̃_x, ẽ and the inner-product proof.
struct R1CSProof {
  CompressedRistretto A_I1, A_O1, S1, A_I2, A_O2, S2, T_1, T_3, T_4, T_5, T_6;
  Scalar t_x, t_x_blinding, e_blinding;
  InnerProductProof ipp_proof;

  bool has_phase_two_commitments() const;
  size_t serialized_size() const;
  std::vector<uint8_t> to_bytes() const;
  // Lengths, the version and the scalars' canonical form are checked; points are checked
  // when verified.
  static Result<R1CSProof, R1CSError> from_bytes(std::span<const uint8_t> bytes);
};

namespace detail {
struct ConstraintList;  // the constraints in order, and where the second phase starts
class R1CSProverState;
class R1CSVerifierState;
}  // namespace detail

// The prover: commit the values, build the gadgets, then prove once (the prover is consumed).
// The witness (values, blindings, every wire) is wiped when the prover is destroyed.
class R1CSProver final : public RandomizableConstraintSystem {
 public:
  // Appends the R1CS domain separator; whatever the caller appended before (a gadget's
  // prefix) stays part of the statement.
  R1CSProver(const PedersenGens& pc_gens, Transcript& transcript);
  ~R1CSProver() override;
  R1CSProver(R1CSProver&&) noexcept;
  R1CSProver(const R1CSProver&) = delete;
  R1CSProver& operator=(const R1CSProver&) = delete;
  R1CSProver& operator=(R1CSProver&&) = delete;

  // V = v·B + ṽ·B̃, appended to the transcript; and the variable that stands for v.
  std::pair<CompressedRistretto, Variable> commit(const Scalar& v, const Scalar& v_blinding);

  MultiplierVariables multiply(LinearCombination left, LinearCombination right) override;
  Result<Variable, R1CSError> allocate(std::optional<Scalar> value) override;
  Result<MultiplierVariables, R1CSError> allocate_multiplier(std::optional<std::pair<Scalar, Scalar>> inputs) override;
  void constrain(LinearCombination lc) override;
  R1CSMetrics metrics() const override;
  void specify_randomized_constraints(RandomizedConstraints callback) override;

  // Randomness from libsodium, through the transcript RNG.
  Result<R1CSProof, R1CSError> prove(const BulletproofGens& bp_gens) &&;
  // The same with another outside randomness source (tests replay the reference's).
  Result<R1CSProof, R1CSError> prove_with_rng(const BulletproofGens& bp_gens, RandomSource& rng) &&;

 private:
  std::unique_ptr<detail::R1CSProverState> s_;
};

// One proof's verification equation, its transcript replayed and its points decoded: the
// identity exactly when the proof holds. Checked alone (R1CSVerifier::verify) or with others
// in one multiscalar multiplication (verify_r1cs_batch). Public data only.
struct R1CSEquation {
  std::vector<Scalar> scalars;  // on the proof's points and the commitments
  std::vector<RistrettoPoint> points;
  Scalar B, B_blinding;      // on the Pedersen generators
  std::vector<Scalar> G, H;  // on G_0.., H_0.. (the proof's padded multipliers)
};

// The verifier: commit the commitments, build the same gadgets, then verify once.
class R1CSVerifier final : public RandomizableConstraintSystem {
 public:
  explicit R1CSVerifier(Transcript& transcript);
  ~R1CSVerifier() override;
  R1CSVerifier(R1CSVerifier&&) noexcept;
  R1CSVerifier(const R1CSVerifier&) = delete;
  R1CSVerifier& operator=(const R1CSVerifier&) = delete;
  R1CSVerifier& operator=(R1CSVerifier&&) = delete;

  Variable commit(const CompressedRistretto& V);

  MultiplierVariables multiply(LinearCombination left, LinearCombination right) override;
  Result<Variable, R1CSError> allocate(std::optional<Scalar> value) override;
  Result<MultiplierVariables, R1CSError> allocate_multiplier(std::optional<std::pair<Scalar, Scalar>> inputs) override;
  void constrain(LinearCombination lc) override;
  R1CSMetrics metrics() const override;
  void specify_randomized_constraints(RandomizedConstraints callback) override;

  // Variable time: the proof, the commitments and the statement are public.
  Result<Ok, R1CSError> verify(const R1CSProof& proof, const PedersenGens& pc_gens, const BulletproofGens& bp_gens) &&;
  // The same up to the last step: the equation to check, alone or in a batch.
  Result<R1CSEquation, R1CSError> equation(const R1CSProof& proof, const BulletproofGens& bp_gens) &&;

 private:
  std::unique_ptr<detail::R1CSVerifierState> s_;
};

// Many proofs' equations in one multiscalar multiplication, each weighted by a random scalar
// from libsodium, the generators' terms summed (so a batch of k costs far less than k checks).
// When the batch fails, each equation is checked alone and the failing ones are named.
struct R1CSBatchOutcome {
  std::vector<size_t> failed;  // indices into the equations, ascending
  bool ok() const { return failed.empty(); }
};
R1CSBatchOutcome verify_r1cs_batch(std::span<const R1CSEquation> equations, const PedersenGens& pc_gens,
                                   const BulletproofGens& bp_gens);

}  // namespace bp
