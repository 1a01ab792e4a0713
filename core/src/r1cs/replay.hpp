// What every party and the dealer of a multiparty R1CS session replay (r1cs_aggregation.hpp):
// the whole list built in a SliceSystem, which records which item made each multiplier,
// constraint and commitment and holds values only for the item it is given, on one
// transcript, so everybody draws the same challenges; each round's sums appended as the
// single prover appends them. Internal to core: the party's slice (r1cs_party_slice.cpp) and
// the dealer's aggregate (r1cs_dealer_aggregate.cpp) are built on it.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bp/r1cs_aggregation.hpp"
#include "bp/transcript_protocol.hpp"
#include "r1cs/constraints.hpp"

namespace bp::detail {

inline R1CSError gadget_error(std::string why) { return R1CSError{R1CSErrorKind::GadgetError, std::move(why)}; }

// The whole list's system; values only while building (or running the callbacks of) `own`.
class SliceSystem final : public RandomizableConstraintSystem {
 public:
  explicit SliceSystem(std::optional<size_t> own) : own_(own) {}
  ~SliceSystem() override {
    for (auto* secrets : {&v, &a_L, &a_R, &a_O})
      for (auto& s : *secrets) s.wipe();
  }

  void enter(size_t item) { current_ = item; }
  bool owned() const { return own_ && *own_ == current_; }

  MultiplierVariables multiply(LinearCombination left, LinearCombination right) override {
    const Scalar l = eval(left), r = eval(right);
    return constrain_multiplier_inputs(*this, push(l, r), std::move(left), std::move(right));
  }
  Result<Variable, R1CSError> allocate(std::optional<Scalar> value) override {
    if (owned() && !value) return R1CSError{R1CSErrorKind::MissingAssignment, {}};
    const Scalar x = owned() ? *value : Scalar::zero();
    return allocate_wire(
        list, [&] { return push(x, Scalar::zero()); },
        [&](size_t i) {
          if (owner[i] != current_) {
            broken = "a multiplier would be shared by two items";
            return;
          }
          a_R[i] = x;
          a_O[i] = a_L[i] * x;
        });
  }
  Result<MultiplierVariables, R1CSError> allocate_multiplier(std::optional<std::pair<Scalar, Scalar>> inputs) override {
    if (owned() && !inputs) return R1CSError{R1CSErrorKind::MissingAssignment, {}};
    return owned() ? push(inputs->first, inputs->second) : push(Scalar::zero(), Scalar::zero());
  }
  void constrain(LinearCombination lc) override {
    if (!names_known_variables(lc, a_L.size(), v.size()))
      broken = "a constraint names a variable the system does not have";
    // Block-diagonal: an item's constraint names only the item's own variables.
    for (const auto& [var, c] : lc.terms()) {
      (void)c;
      if (var.kind == Variable::Kind::One) continue;
      const size_t holder = var.kind == Variable::Kind::Committed
                                ? (var.index < v.size() ? committed_owner[var.index] : 0)
                                : (var.index < owner.size() ? owner[var.index] : 0);
      if (holder != current_) broken = "an item's constraint names another item's variable";
    }
    constraint_owner.push_back(current_);
    list.constraints.push_back(std::move(lc));
  }
  R1CSMetrics metrics() const override { return list.metrics(a_L.size()); }
  void specify_randomized_constraints(RandomizedConstraints callback) override {
    const size_t item = current_;
    list.deferred.push_back([this, item, callback = std::move(callback)](RandomizedConstraintSystem& cs) {
      enter(item);
      return callback(cs);
    });
  }

  // Whether every constraint of the owned item holds on its values (before committing: a
  // party finds out its own statement is false before it sends anything).
  bool own_constraints_hold() const {
    for (size_t q = 0; q < list.constraints.size(); ++q) {
      if (!own_ || constraint_owner[q] != *own_) continue;
      Scalar sum;
      for (const auto& [var, c] : list.constraints[q].terms()) sum += c * value_of(var);
      if (sum != Scalar::zero()) return false;
    }
    return true;
  }

  std::vector<Scalar> v, a_L, a_R, a_O;
  std::vector<size_t> committed_owner, owner, constraint_owner;
  ConstraintList list;
  std::optional<std::string> broken;

 private:
  Scalar value_of(const Variable& var) const {
    switch (var.kind) {
      case Variable::Kind::Committed: return v[var.index];
      case Variable::Kind::MultiplierLeft: return a_L[var.index];
      case Variable::Kind::MultiplierRight: return a_R[var.index];
      case Variable::Kind::MultiplierOutput: return a_O[var.index];
      case Variable::Kind::One: return Scalar::one();
    }
    return Scalar::zero();
  }
  Scalar eval(const LinearCombination& lc) const {
    if (!owned() || !names_known_variables(lc, a_L.size(), v.size())) return Scalar::zero();
    Scalar sum;
    for (const auto& [var, c] : lc.terms()) sum += c * value_of(var);
    return sum;
  }
  MultiplierVariables push(const Scalar& l, const Scalar& r) {
    const size_t i = a_L.size();
    a_L.push_back(l);
    a_R.push_back(r);
    a_O.push_back(l * r);
    owner.push_back(current_);
    return {{Variable::Kind::MultiplierLeft, i},
            {Variable::Kind::MultiplierRight, i},
            {Variable::Kind::MultiplierOutput, i}};
  }

  std::optional<size_t> own_;
  size_t current_ = 0;
};

// What a party and the dealer both replay: the list built on one transcript, the sums of
// each round appended as the single prover appends them.
struct Replay {
  Replay(const GadgetList& l, std::string_view label, std::optional<size_t> own)
      : list(l), transcript(label), system(own) {
    list.append_prefixes(transcript);
    r1cs_domain_sep(transcript);
  }

  // Builds the first phase; values for the owned item's commitments (others read as zero).
  Result<Ok, R1CSError> build(std::optional<std::span<const uint64_t>> values) {
    size_t at = 0;
    for (size_t k = 0; k < list.items().size(); ++k)
      for (size_t j = 0; j < list.items()[k].commitments(); ++j, ++at) system.committed_owner.push_back(k);
    system.v.assign(at, Scalar::zero());
    if (values)
      for (size_t j = 0; j < at; ++j) system.v[j] = Scalar::from_u64((*values)[j]);
    std::vector<Variable> vars;
    for (size_t j = 0; j < at; ++j) vars.push_back({Variable::Kind::Committed, j});
    auto built = list.build(system, vars, values, [this](size_t item) { system.enter(item); });
    if (!built) return built.error();
    if (system.broken) return gadget_error(*system.broken);
    n1 = system.a_L.size();
    return Ok{};
  }

  // V's, m, the first phase's sums; then the second phase.
  Result<Ok, R1CSError> second_phase(std::span<const CompressedRistretto> V, const CompressedRistretto& A_I1,
                                     const CompressedRistretto& A_O1, const CompressedRistretto& S1) {
    for (const auto& p : V) append_point(transcript, "V", p);
    transcript.append_u64("m", V.size());
    append_point(transcript, "A_I1", A_I1);
    append_point(transcript, "A_O1", A_O1);
    append_point(transcript, "S1", S1);
    if (auto done = run_second_phase(system.list, system, transcript); !done) return done.error();
    if (system.broken) return gadget_error(*system.broken);
    n = system.a_L.size();
    padded_n = next_power_of_two(n);
    if (padded_n > list.generators_capacity()) return R1CSError{R1CSErrorKind::InvalidGeneratorsLength, {}};
    return Ok{};
  }

  Result<Ok, R1CSError> challenges_yz(const CompressedRistretto& A_I2, const CompressedRistretto& A_O2,
                                      const CompressedRistretto& S2) {
    append_point(transcript, "A_I2", A_I2);
    append_point(transcript, "A_O2", A_O2);
    append_point(transcript, "S2", S2);
    y = challenge_scalar(transcript, "y");
    z = challenge_scalar(transcript, "z");
    auto flat = flatten(system.list.constraints, z, n, system.v.size());
    if (!flat) return gadget_error("a constraint names a variable the system does not have");
    w = std::move(*flat);
    exp_y = powers(y, padded_n);
    exp_y_inv = powers(y.invert(), padded_n);
    return Ok{};
  }

  void challenges_ux(const R1CSPolyShare& T) {
    append_point(transcript, "T_1", T.T_1);
    append_point(transcript, "T_3", T.T_3);
    append_point(transcript, "T_4", T.T_4);
    append_point(transcript, "T_5", T.T_5);
    append_point(transcript, "T_6", T.T_6);
    u = challenge_scalar(transcript, "u");
    x = challenge_scalar(transcript, "x");
  }

  // The multipliers item k owns, ascending (its first phase's, then its second's).
  std::vector<size_t> multipliers_of(size_t k) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < system.owner.size(); ++i)
      if (system.owner[i] == k) out.push_back(i);
    return out;
  }

  const GadgetList& list;
  Transcript transcript;
  SliceSystem system;
  size_t n1 = 0, n = 0, padded_n = 1;
  Scalar y, z, u, x;
  FlattenedConstraints w;
  std::vector<Scalar> exp_y, exp_y_inv;
};

inline std::optional<RistrettoPoint> sum_points(std::span<const CompressedRistretto> points) {
  RistrettoPoint sum = RistrettoPoint::identity();
  for (const auto& p : points) {
    auto d = RistrettoPoint::decompress(p);
    if (!d) return std::nullopt;
    sum = sum + *d;
  }
  return sum;
}

template <class Message, class Field>
std::optional<CompressedRistretto> sum_of(std::span<const Message> all, Field field) {
  std::vector<CompressedRistretto> points;
  for (const auto& m : all) points.push_back(m.*field);
  auto sum = sum_points(points);
  if (!sum) return std::nullopt;
  return sum->compress();
}

}  // namespace bp::detail
