#include "bp/r1cs_gadgets.hpp"

namespace bp::gadgets {

Result<Ok, R1CSError> range(ConstraintSystem& cs, LinearCombination v, std::optional<uint64_t> value, size_t n) {
  if (n > 64) return R1CSError{R1CSErrorKind::GadgetError, "range: n must be 0..64"};
  Scalar exp_2 = Scalar::one();
  for (size_t i = 0; i < n; ++i) {
    std::optional<std::pair<Scalar, Scalar>> bits;
    if (value) {
      const uint64_t bit = (*value >> i) & 1;  // a shift and a mask: no branch on the value
      bits.emplace(Scalar::from_u64(1 - bit), Scalar::from_u64(bit));
    }
    auto wires = cs.allocate_multiplier(bits);
    if (!wires) return wires.error();
    cs.constrain(wires->output);                                                  // a·b = 0
    cs.constrain(LinearCombination(wires->left) + wires->right - Scalar::one());  // a = 1 − b
    v -= LinearCombination(wires->right) * exp_2;
    exp_2 += exp_2;
  }
  cs.constrain(std::move(v));  // v = Σ 2^i·b_i
  return Ok{};
}

void shuffle_domain_sep(Transcript& transcript, uint64_t k) {
  static constexpr char kLabel[] = "ShuffleProof";
  transcript.append_message("dom-sep", {reinterpret_cast<const uint8_t*>(kLabel), sizeof kLabel - 1});
  transcript.append_u64("k", k);
}

namespace {
// ∏ (v_i − ζ), multiplied from the last two down to the first; returns the product's wire.
Variable product_minus(RandomizedConstraintSystem& cs, const std::vector<Variable>& v, const Scalar& zeta) {
  const size_t k = v.size();
  Variable out = cs.multiply(LinearCombination(v[k - 1]) - zeta, LinearCombination(v[k - 2]) - zeta).output;
  for (size_t i = k - 2; i-- > 0;) out = cs.multiply(out, LinearCombination(v[i]) - zeta).output;
  return out;
}
}  // namespace

Result<Ok, R1CSError> shuffle(RandomizableConstraintSystem& cs, std::vector<Variable> x, std::vector<Variable> y) {
  if (x.size() != y.size() || x.empty())
    return R1CSError{R1CSErrorKind::GadgetError, "shuffle: x and y must have the same length, at least 1"};
  if (x.size() == 1) {
    cs.constrain(LinearCombination(y[0]) - x[0]);
    return Ok{};
  }
  cs.specify_randomized_constraints([x = std::move(x), y = std::move(y)](RandomizedConstraintSystem& phase_two) {
    const Scalar zeta = phase_two.challenge_scalar("shuffle challenge");
    const Variable x_product = product_minus(phase_two, x, zeta);
    const Variable y_product = product_minus(phase_two, y, zeta);
    phase_two.constrain(LinearCombination(x_product) - y_product);
    return Result<Ok, R1CSError>(Ok{});
  });
  return Ok{};
}

void example(ConstraintSystem& cs, LinearCombination a1, LinearCombination a2, LinearCombination b1,
             LinearCombination b2, LinearCombination c1, LinearCombination c2) {
  const auto product = cs.multiply(a1 + a2, b1 + b2).output;
  cs.constrain(c1 + c2 - product);
}

Result<Ok, R1CSError> member_of(ConstraintSystem& cs, const LinearCombination& v, std::span<const Scalar> set) {
  if (set.empty()) return R1CSError{R1CSErrorKind::GadgetError, "member_of: the set is empty"};
  LinearCombination product = v - set[0];
  for (size_t i = 1; i < set.size(); ++i) product = cs.multiply(std::move(product), v - set[i]).output;
  cs.constrain(std::move(product));
  return Ok{};
}

void sum_equals(ConstraintSystem& cs, std::span<const Variable> parts, const LinearCombination& total) {
  LinearCombination relation = -total;
  for (const Variable& part : parts) relation += part;
  cs.constrain(std::move(relation));
}

Result<Ok, R1CSError> greater_or_equal(ConstraintSystem& cs, const LinearCombination& a,
                                       std::optional<uint64_t> a_value, const LinearCombination& b,
                                       std::optional<uint64_t> b_value, size_t n) {
  if (n == 0 || n > 64) return R1CSError{R1CSErrorKind::GadgetError, "greater_or_equal: n must be 1..64"};
  if (a_value.has_value() != b_value.has_value())
    return R1CSError{R1CSErrorKind::GadgetError, "greater_or_equal: both values or neither"};
  std::optional<uint64_t> difference;
  if (a_value) {
    // The prover's own statement: refusing a false one tells nobody anything.
    if (*a_value < *b_value) return R1CSError{R1CSErrorKind::GadgetError, "greater_or_equal: a is below b"};
    difference = *a_value - *b_value;
  }
  return range(cs, a - b, difference, n);
}

}  // namespace bp::gadgets
