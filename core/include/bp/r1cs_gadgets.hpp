// Gadgets: plain functions that add multipliers and constraints over the variables they are
// given, the same code for the prover (values given) and the verifier (values absent). Each
// states what it costs; docs/r1cs.md says how to write one.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "bp/r1cs.hpp"

namespace bp::gadgets {

// v in [0, 2^n) by its bits (n in 0..64; n = 0: v = 0): n multipliers b_i·(1 − b_i) = 0 and the sum
// Σ 2^i·b_i = v; 2n + 1 constraints, one phase. The reference tests' range proof, wire for wire.
Result<Ok, R1CSError> range(ConstraintSystem& cs, LinearCombination v, std::optional<uint64_t> value, size_t n);

// y is a permutation of x (k = |x| = |y| ≥ 1): ∏(x_i − ζ) = ∏(y_i − ζ) for a challenge ζ
// drawn in the second phase; 2(k − 1) multipliers and 4k − 3 constraints (k = 1: y_0 = x_0,
// one constraint, no second phase). The reference's k-shuffle. Its statement starts with
// shuffle_domain_sep on the transcript, before the prover or verifier is made.
Result<Ok, R1CSError> shuffle(RandomizableConstraintSystem& cs, std::vector<Variable> x, std::vector<Variable> y);
void shuffle_domain_sep(Transcript& transcript, uint64_t k);

// (a1 + a2)·(b1 + b2) = c1 + c2: one multiplier, 3 constraints. The reference's example.
void example(ConstraintSystem& cs, LinearCombination a1, LinearCombination a2, LinearCombination b1,
             LinearCombination b2, LinearCombination c1, LinearCombination c2);

// v is one of a public set {s_0, ..., s_{k−1}} (k ≥ 1): ∏(v − s_i) = 0, which in a prime field
// holds only when a factor is zero; k − 1 multipliers and 2k − 1 constraints (k = 1: v = s_0,
// one constraint). The prover needs no value: the multipliers evaluate v itself.
Result<Ok, R1CSError> member_of(ConstraintSystem& cs, const LinearCombination& v, std::span<const Scalar> set);

// Σ parts = total: no multiplier, one constraint. A linear relation with other coefficients
// is cs.constrain(Σ c_i·v_i − total) itself; this is the common case of amounts that add up.
void sum_equals(ConstraintSystem& cs, std::span<const Variable> parts, const LinearCombination& total);

// a ≥ b for two values below 2^n (n in 1..64): a − b in [0, 2^n), by range on the difference;
// n multipliers, 2n + 1 constraints. It says nothing by itself about a and b being below 2^n:
// prove that too (range on each) unless it holds by construction. The prover refuses a > b
// false (GadgetError) rather than make a proof that cannot verify.
Result<Ok, R1CSError> greater_or_equal(ConstraintSystem& cs, const LinearCombination& a,
                                       std::optional<uint64_t> a_value, const LinearCombination& b,
                                       std::optional<uint64_t> b_value, size_t n);

}  // namespace bp::gadgets
