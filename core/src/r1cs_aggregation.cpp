// Multiparty R1CS (bp/r1cs_aggregation.hpp): the single prover's steps (r1cs_prover.cpp) cut
// along the owners of the multipliers. Every party and the dealer build the whole list in a
// SliceSystem, which records which item made each multiplier, constraint and commitment and
// holds values only for the item it is given; the second phase's callbacks run in list order
// on one transcript, so everybody draws the same challenges. A party's commitments and
// shares cover its own multipliers at their global indices (the generators G_i, H_i and the
// powers y^i of the whole system); the sums are the single prover's.
#include "bp/r1cs_aggregation.hpp"

#include <sodium.h>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/random.hpp"
#include "bp/transcript_protocol.hpp"
#include "ctime.hpp"
#include "r1cs_constraints.hpp"

namespace bp {
namespace detail {
namespace {

R1CSError gadget_error(std::string why) { return R1CSError{R1CSErrorKind::GadgetError, std::move(why)}; }

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
    const auto vars = push(l, r);
    left -= vars.left;
    right -= vars.right;
    constrain(std::move(left));
    constrain(std::move(right));
    return vars;
  }
  Result<Variable, R1CSError> allocate(std::optional<Scalar> value) override {
    if (owned() && !value) return R1CSError{R1CSErrorKind::MissingAssignment, {}};
    const Scalar x = owned() ? *value : Scalar::zero();
    auto& pending = list.pending_multiplier;
    if (!pending) {
      const auto vars = push(x, Scalar::zero());
      pending = vars.left.index;
      return vars.left;
    }
    const size_t i = *pending;
    pending.reset();
    if (owner[i] != current_) {
      broken = "a multiplier would be shared by two items";
      return Variable{Variable::Kind::MultiplierRight, i};
    }
    a_R[i] = x;
    a_O[i] = a_L[i] * x;
    return Variable{Variable::Kind::MultiplierRight, i};
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

std::optional<RistrettoPoint> sum_points(std::span<const CompressedRistretto> points) {
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

CompressedRistretto commit_secret(const PedersenGens& pc, const BulletproofGens& gens, const Scalar& blinding,
                                  std::span<const size_t> at, std::span<const Scalar> on_G,
                                  std::span<const Scalar> on_H) {
  std::vector<Scalar> scalars{blinding};
  std::vector<const CtBaseTable*> tables{&pc.B_blinding_ct_table()};
  const auto G = gens.G_ct_tables(0, gens.gens_capacity()), H = gens.H_ct_tables(0, gens.gens_capacity());
  for (size_t k = 0; k < at.size(); ++k) {
    if (!on_G.empty()) {
      scalars.push_back(on_G[k]);
      tables.push_back(G[at[k]]);
    }
    if (!on_H.empty()) {
      scalars.push_back(on_H[k]);
      tables.push_back(H[at[k]]);
    }
  }
  const auto out = multiscalar_mul(scalars, tables).compress();
  for (auto& s : scalars) s.wipe();
  declassify(&out, sizeof out);
  return out;
}

bool same(const CompressedRistretto& a, const CompressedRistretto& b) { return a.bytes == b.bytes; }

}  // namespace

class R1CSSliceState {
 public:
  R1CSSliceState(const GadgetList& l, size_t item, std::string label) : list(l), item(item), label(std::move(label)) {}
  ~R1CSSliceState() {
    for (auto* secrets : {&v_blinding, &s_L, &s_R, &l1, &l2, &l3, &r0, &r1, &r3})
      for (auto& s : *secrets) s.wipe();
    for (auto* s : {&i1, &o1, &s1, &i2, &o2, &s2, &tau1, &tau3, &tau4, &tau5, &tau6, &t1, &t2, &t3, &t4, &t5, &t6})
      s->wipe();
  }

  GadgetList list;
  size_t item;
  std::string label;
  std::unique_ptr<Replay> replay;
  std::vector<Scalar> v_blinding;
  size_t first_commitment = 0;
  std::vector<size_t> mine;  // owned multipliers, ascending
  std::vector<Scalar> s_L, s_R;
  Scalar i1, o1, s1, i2, o2, s2;
  std::vector<Scalar> l1, l2, l3, r0, r1, r3;
  Scalar t1, t2, t3, t4, t5, t6, tau1, tau3, tau4, tau5, tau6;
  R1CSFirstPhaseShare first;
  R1CSSecondPhaseShare second;
  R1CSPolyShare poly;
  int step = 1;
};

}  // namespace detail

using detail::r1cs_generators;
using detail::r1cs_pedersen;

R1CSPartySlice::R1CSPartySlice(std::unique_ptr<detail::R1CSSliceState> s) : s_(std::move(s)) {}
R1CSPartySlice::~R1CSPartySlice() = default;
R1CSPartySlice::R1CSPartySlice(R1CSPartySlice&&) noexcept = default;
R1CSPartySlice& R1CSPartySlice::operator=(R1CSPartySlice&&) noexcept = default;

Result<R1CSPartySlice, R1CSError> R1CSPartySlice::create(const GadgetList& list, size_t item, std::string label,
                                                         std::span<const uint64_t> values,
                                                         std::span<const Scalar> blindings) {
  if (item >= list.items().size()) return detail::gadget_error("the list has no item " + std::to_string(item));
  const size_t count = list.items()[item].commitments();
  if (values.size() != count || blindings.size() != count)
    return detail::gadget_error("item " + list.items()[item].text() + " takes " + std::to_string(count) +
                                " values and blindings");
  auto s = std::make_unique<detail::R1CSSliceState>(list, item, std::move(label));
  s->replay = std::make_unique<detail::Replay>(s->list, s->label, item);
  for (size_t k = 0; k < item; ++k) s->first_commitment += list.items()[k].commitments();
  std::vector<uint64_t> all_values(list.commitments(), 0);
  for (size_t j = 0; j < count; ++j) all_values[s->first_commitment + j] = values[j];
  auto built = s->replay->build(std::span<const uint64_t>(all_values));
  sodium_memzero(all_values.data(), all_values.size() * sizeof(uint64_t));  // the system keeps its own copy
  if (!built) return built.error();
  if (!s->replay->system.own_constraints_hold())
    return R1CSError{R1CSErrorKind::Unsatisfied, list.items()[item].text()};

  const PedersenGens& pc = r1cs_pedersen();
  const BulletproofGens& gens = r1cs_generators(list.generators_capacity());
  SystemRandom rng;
  s->v_blinding.assign(blindings.begin(), blindings.end());
  for (size_t j = 0; j < count; ++j) {
    const auto V = pc.commit(Scalar::from_u64(values[j]), blindings[j]).compress();
    detail::declassify(&V, sizeof V);
    s->first.V.push_back(V);
  }
  s->mine = s->replay->multipliers_of(item);  // all first-phase for now
  const auto& sys = s->replay->system;
  std::vector<Scalar> aL, aR, aO;
  for (size_t i : s->mine) {
    aL.push_back(sys.a_L[i]);
    aR.push_back(sys.a_R[i]);
    aO.push_back(sys.a_O[i]);
    s->s_L.push_back(Scalar::random(rng));
    s->s_R.push_back(Scalar::random(rng));
  }
  s->i1 = Scalar::random(rng);
  s->o1 = Scalar::random(rng);
  s->s1 = Scalar::random(rng);
  s->first.A_I1 = detail::commit_secret(pc, gens, s->i1, s->mine, aL, aR);
  s->first.A_O1 = detail::commit_secret(pc, gens, s->o1, s->mine, aO, {});
  s->first.S1 = detail::commit_secret(pc, gens, s->s1, s->mine, s->s_L, s->s_R);
  for (auto* secrets : {&aL, &aR, &aO})
    for (auto& k : *secrets) k.wipe();
  return R1CSPartySlice(std::move(s));
}

const R1CSFirstPhaseShare& R1CSPartySlice::first_phase() const { return s_->first; }

Result<R1CSSecondPhaseShare, R1CSError> R1CSPartySlice::second_phase(std::span<const R1CSFirstPhaseShare> all) {
  auto& s = *s_;
  if (s.step != 1) return detail::gadget_error("the second phase comes once, after the first");
  const auto& items = s.list.items();
  if (all.size() != items.size()) return detail::gadget_error("one first-phase message per item");
  std::vector<CompressedRistretto> V;
  for (size_t k = 0; k < all.size(); ++k) {
    if (all[k].V.size() != items[k].commitments())
      return detail::gadget_error("item " + std::to_string(k) + "'s commitments are not its item's count");
    V.insert(V.end(), all[k].V.begin(), all[k].V.end());
  }
  const auto& own = all[s.item];
  if (own.V.size() != s.first.V.size() || !std::equal(own.V.begin(), own.V.end(), s.first.V.begin(), detail::same) ||
      !detail::same(own.A_I1, s.first.A_I1) || !detail::same(own.A_O1, s.first.A_O1) ||
      !detail::same(own.S1, s.first.S1))
    return detail::gadget_error("the dealer's round holds another message for this party");
  const auto A_I1 = detail::sum_of(all, &R1CSFirstPhaseShare::A_I1),
             A_O1 = detail::sum_of(all, &R1CSFirstPhaseShare::A_O1), S1 = detail::sum_of(all, &R1CSFirstPhaseShare::S1);
  if (!A_I1 || !A_O1 || !S1) return R1CSError{R1CSErrorKind::FormatError, "a first-phase point does not decode"};
  for (const auto& point : V)
    if (!RistrettoPoint::decompress(point))
      return R1CSError{R1CSErrorKind::FormatError, "a commitment does not decode"};
  if (auto done = s.replay->second_phase(V, *A_I1, *A_O1, *S1); !done) return done.error();
  if (!s.replay->system.own_constraints_hold())
    return R1CSError{R1CSErrorKind::Unsatisfied, s.list.items()[s.item].text()};

  const auto all_mine = s.replay->multipliers_of(s.item);
  std::vector<size_t> second(all_mine.begin() + static_cast<std::ptrdiff_t>(s.mine.size()), all_mine.end());
  s.mine = all_mine;
  if (!second.empty()) {
    SystemRandom rng;
    const auto& sys = s.replay->system;
    std::vector<Scalar> aL, aR, aO, sL, sR;
    for (size_t i : second) {
      aL.push_back(sys.a_L[i]);
      aR.push_back(sys.a_R[i]);
      aO.push_back(sys.a_O[i]);
      sL.push_back(Scalar::random(rng));
      sR.push_back(Scalar::random(rng));
    }
    s.i2 = Scalar::random(rng);
    s.o2 = Scalar::random(rng);
    s.s2 = Scalar::random(rng);
    const PedersenGens& pc = r1cs_pedersen();
    const BulletproofGens& gens = r1cs_generators(s.list.generators_capacity());
    s.second.A_I2 = detail::commit_secret(pc, gens, s.i2, second, aL, aR);
    s.second.A_O2 = detail::commit_secret(pc, gens, s.o2, second, aO, {});
    s.second.S2 = detail::commit_secret(pc, gens, s.s2, second, sL, sR);
    s.s_L.insert(s.s_L.end(), sL.begin(), sL.end());
    s.s_R.insert(s.s_R.end(), sR.begin(), sR.end());
    for (auto* secrets : {&aL, &aR, &aO, &sL, &sR})
      for (auto& k : *secrets) k.wipe();
  }
  s.step = 2;
  return s.second;
}

Result<R1CSPolyShare, R1CSError> R1CSPartySlice::poly(std::span<const R1CSSecondPhaseShare> all) {
  auto& s = *s_;
  if (s.step != 2) return detail::gadget_error("the polynomial round comes once, after the second phase");
  if (all.size() != s.list.items().size()) return detail::gadget_error("one second-phase message per item");
  const auto& own = all[s.item];
  if (!detail::same(own.A_I2, s.second.A_I2) || !detail::same(own.A_O2, s.second.A_O2) ||
      !detail::same(own.S2, s.second.S2))
    return detail::gadget_error("the dealer's round holds another message for this party");
  const auto A_I2 = detail::sum_of(all, &R1CSSecondPhaseShare::A_I2),
             A_O2 = detail::sum_of(all, &R1CSSecondPhaseShare::A_O2),
             S2 = detail::sum_of(all, &R1CSSecondPhaseShare::S2);
  if (!A_I2 || !A_O2 || !S2) return R1CSError{R1CSErrorKind::FormatError, "a second-phase point does not decode"};
  auto& r = *s.replay;
  if (auto done = r.challenges_yz(*A_I2, *A_O2, *S2); !done) return done.error();

  const auto& sys = r.system;
  for (size_t k = 0; k < s.mine.size(); ++k) {
    const size_t i = s.mine[k];
    s.l1.push_back(sys.a_L[i] + r.exp_y_inv[i] * r.w.w_R[i]);
    s.l2.push_back(sys.a_O[i]);
    s.l3.push_back(s.s_L[k]);
    s.r0.push_back(r.w.w_O[i] - r.exp_y[i]);
    s.r1.push_back(r.exp_y[i] * sys.a_R[i] + r.w.w_L[i]);
    s.r3.push_back(r.exp_y[i] * s.s_R[k]);
  }
  s.t1 = inner_product(s.l1, s.r0);
  s.t2 = inner_product(s.l1, s.r1) + inner_product(s.l2, s.r0);
  s.t3 = inner_product(s.l2, s.r1) + inner_product(s.l3, s.r0);
  s.t4 = inner_product(s.l1, s.r3) + inner_product(s.l3, s.r1);
  s.t5 = inner_product(s.l2, s.r3);
  s.t6 = inner_product(s.l3, s.r3);
  SystemRandom rng;
  for (auto* tau : {&s.tau1, &s.tau3, &s.tau4, &s.tau5, &s.tau6}) *tau = Scalar::random(rng);
  const PedersenGens& pc = r1cs_pedersen();
  s.poly = {pc.commit(s.t1, s.tau1).compress(), pc.commit(s.t3, s.tau3).compress(), pc.commit(s.t4, s.tau4).compress(),
            pc.commit(s.t5, s.tau5).compress(), pc.commit(s.t6, s.tau6).compress()};
  detail::declassify(&s.poly, sizeof s.poly);
  s.step = 3;
  return s.poly;
}

Result<R1CSProofShare, R1CSError> R1CSPartySlice::share(std::span<const R1CSPolyShare> all) {
  auto& s = *s_;
  if (s.step != 3) return detail::gadget_error("the shares come once, after the polynomial round");
  if (all.size() != s.list.items().size()) return detail::gadget_error("one polynomial message per item");
  const auto& own = all[s.item];
  if (!detail::same(own.T_1, s.poly.T_1) || !detail::same(own.T_3, s.poly.T_3) || !detail::same(own.T_4, s.poly.T_4) ||
      !detail::same(own.T_5, s.poly.T_5) || !detail::same(own.T_6, s.poly.T_6))
    return detail::gadget_error("the dealer's round holds another message for this party");
  R1CSPolyShare T;
  const auto T1 = detail::sum_of(all, &R1CSPolyShare::T_1), T3 = detail::sum_of(all, &R1CSPolyShare::T_3),
             T4 = detail::sum_of(all, &R1CSPolyShare::T_4), T5 = detail::sum_of(all, &R1CSPolyShare::T_5),
             T6 = detail::sum_of(all, &R1CSPolyShare::T_6);
  if (!T1 || !T3 || !T4 || !T5 || !T6) return R1CSError{R1CSErrorKind::FormatError, "a T point does not decode"};
  T = {*T1, *T3, *T4, *T5, *T6};
  auto& r = *s.replay;
  r.challenges_ux(T);
  const Scalar& x = r.x;
  Scalar tau2;
  for (size_t j = 0; j < s.v_blinding.size(); ++j) tau2 += r.w.w_V[s.first_commitment + j] * s.v_blinding[j];
  const Scalar x2 = x * x, x3 = x2 * x, x4 = x3 * x, x5 = x4 * x, x6 = x5 * x;
  R1CSProofShare out;
  out.t_x = s.t1 * x + s.t2 * x2 + s.t3 * x3 + s.t4 * x4 + s.t5 * x5 + s.t6 * x6;
  out.t_x_blinding = s.tau1 * x + tau2 * x2 + s.tau3 * x3 + s.tau4 * x4 + s.tau5 * x5 + s.tau6 * x6;
  const Scalar i = s.i1 + r.u * s.i2, o = s.o1 + r.u * s.o2, sb = s.s1 + r.u * s.s2;
  out.e_blinding = x * (i + x * (o + x * sb));
  for (size_t k = 0; k < s.mine.size(); ++k) {
    out.l.push_back(s.l1[k] * x + s.l2[k] * x2 + s.l3[k] * x3);
    out.r.push_back(s.r0[k] + s.r1[k] * x + s.r3[k] * x3);
  }
  tau2.wipe();
  detail::declassify(out.l.data(), out.l.size() * sizeof(Scalar));
  detail::declassify(out.r.data(), out.r.size() * sizeof(Scalar));
  for (const auto* sent : {&out.t_x, &out.t_x_blinding, &out.e_blinding}) detail::declassify(sent, sizeof *sent);
  s.step = 4;
  return out;
}

namespace {

// One party's shares against its own commitments (the audit, when the whole proof fails):
// its l, r fit its A, S commitments, its t_x is <l, r>, and t_x with its blinding fit its
// T commitments and its own V's. Variable time: everything here is public.
bool shares_fit(const detail::Replay& r, size_t k, std::span<const size_t> mine, size_t first_commitment,
                const R1CSFirstPhaseShare& first, const R1CSSecondPhaseShare& second, const R1CSPolyShare& poly,
                const R1CSProofShare& share) {
  const PedersenGens& pc = r1cs_pedersen();
  const BulletproofGens& gens = r1cs_generators(r.list.generators_capacity());
  if (inner_product(share.l, share.r) != share.t_x) return false;
  const Scalar &x = r.x, &u = r.u;
  const Scalar x2 = x * x, x3 = x2 * x;
  // t_x·B + t̃_x·B̃ = x²(Σ w_V·V + (w_c + δ)·B) + x·T_1 + x³·T_3 + ... + x⁶·T_6, over item k.
  Scalar wc, delta;
  Scalar zq = r.z;
  for (size_t q = 0; q < r.system.list.constraints.size(); ++q, zq *= r.z) {
    if (r.system.constraint_owner[q] != k) continue;
    for (const auto& [var, c] : r.system.list.constraints[q].terms())
      if (var.kind == Variable::Kind::One) wc -= zq * c;
  }
  for (size_t i : mine) delta += r.exp_y_inv[i] * r.w.w_R[i] * r.w.w_L[i];
  std::vector<Scalar> scalars;
  std::vector<RistrettoPoint> points;
  const auto add = [&](const Scalar& s, const CompressedRistretto& c) {
    auto p = RistrettoPoint::decompress(c);
    if (!p) return false;
    scalars.push_back(s);
    points.push_back(*p);
    return true;
  };
  for (size_t j = 0; j < first.V.size(); ++j)
    if (!add(x2 * r.w.w_V[first_commitment + j], first.V[j])) return false;
  Scalar xi = x;
  const CompressedRistretto* T[] = {&poly.T_1, nullptr, &poly.T_3, &poly.T_4, &poly.T_5, &poly.T_6};
  for (const auto* t : T) {
    if (t && !add(xi, *t)) return false;
    xi *= x;
  }
  scalars.push_back(x2 * (wc + delta) - share.t_x);
  points.push_back(pc.B);
  scalars.push_back(-share.t_x_blinding);
  points.push_back(pc.B_blinding);
  if (multiscalar_mul_vartime(scalars, points) != RistrettoPoint::identity()) return false;

  // Σ g_i(l_i·G_i + r_i·y^-i·H_i) − Σ g_i(x·y^-i·w_R·G_i + (y^-i·w_O − 1 + x·y^-i·w_L)·H_i) + ẽ·B̃
  //   = x(A_I1 + u·A_I2) + x²(A_O1 + u·A_O2) + x³(S1 + u·S2), g_i = 1 or u (second phase).
  scalars.clear();
  points.clear();
  for (size_t n = 0; n < mine.size(); ++n) {
    const size_t i = mine[n];
    const Scalar g = i < r.n1 ? Scalar::one() : u;
    const Scalar& yi = r.exp_y_inv[i];
    scalars.push_back(g * (share.l[n] - x * yi * r.w.w_R[i]));
    points.push_back(gens.G(0, gens.gens_capacity())[i]);
    scalars.push_back(g * (share.r[n] * yi - (yi * r.w.w_O[i] - Scalar::one() + x * yi * r.w.w_L[i])));
    points.push_back(gens.H(0, gens.gens_capacity())[i]);
  }
  scalars.push_back(share.e_blinding);
  points.push_back(pc.B_blinding);
  const std::pair<Scalar, const CompressedRistretto*> sides[] = {{-x, &first.A_I1},       {-x2, &first.A_O1},
                                                                 {-x3, &first.S1},        {-x * u, &second.A_I2},
                                                                 {-x2 * u, &second.A_O2}, {-x3 * u, &second.S2}};
  for (const auto& [scalar, point] : sides)
    if (!add(scalar, *point)) return false;
  return multiscalar_mul_vartime(scalars, points) == RistrettoPoint::identity();
}

}  // namespace

namespace {

// Everything a dealer does with the shares before it verifies: its replay of the session up
// to the last challenge, each item's multipliers and first commitment, and (with `prove`)
// the proof the shares add up to, not yet verified.
struct Assembly {
  std::unique_ptr<detail::Replay> replay;
  R1CSAggregate out;
  std::vector<std::vector<size_t>> mine;
  std::vector<size_t> first_commitment;
};

Result<Assembly, R1CSBlame> assemble(const GadgetList& list, std::string_view label,
                                     std::span<const R1CSFirstPhaseShare> first,
                                     std::span<const R1CSSecondPhaseShare> second, std::span<const R1CSPolyShare> poly,
                                     std::span<const R1CSProofShare> shares, bool prove) {
  const size_t items = list.items().size();
  const auto refuse = [](R1CSErrorKind kind, std::string why, std::vector<size_t> blamed) {
    return R1CSBlame{R1CSError{kind, std::move(why)}, std::move(blamed)};
  };
  if (first.size() != items || second.size() != items || poly.size() != items || shares.size() != items)
    return refuse(R1CSErrorKind::FormatError, "one message per item in every round", {});
  Assembly a;
  a.replay = std::make_unique<detail::Replay>(list, label, std::nullopt);
  detail::Replay& r = *a.replay;
  if (auto built = r.build(std::nullopt); !built) return R1CSBlame{built.error(), {}};
  R1CSAggregate& out = a.out;
  std::vector<size_t> wrong_count;
  for (size_t k = 0; k < items; ++k) {
    if (first[k].V.size() != list.items()[k].commitments()) wrong_count.push_back(k);
    out.commitments.insert(out.commitments.end(), first[k].V.begin(), first[k].V.end());
  }
  if (!wrong_count.empty())
    return refuse(R1CSErrorKind::FormatError, "commitments that are not their item's count", wrong_count);
  // Every point of every party decodes, or that party is named.
  std::vector<size_t> malformed;
  for (size_t k = 0; k < items; ++k) {
    std::vector<CompressedRistretto> its = first[k].V;
    for (const auto* p : {&first[k].A_I1, &first[k].A_O1, &first[k].S1, &second[k].A_I2, &second[k].A_O2, &second[k].S2,
                          &poly[k].T_1, &poly[k].T_3, &poly[k].T_4, &poly[k].T_5, &poly[k].T_6})
      its.push_back(*p);
    if (!detail::sum_points(its)) malformed.push_back(k);
  }
  if (!malformed.empty()) return refuse(R1CSErrorKind::FormatError, "points that do not decode", malformed);

  R1CSProof& proof = out.proof;
  proof.A_I1 = *detail::sum_of(first, &R1CSFirstPhaseShare::A_I1);
  proof.A_O1 = *detail::sum_of(first, &R1CSFirstPhaseShare::A_O1);
  proof.S1 = *detail::sum_of(first, &R1CSFirstPhaseShare::S1);
  if (auto done = r.second_phase(out.commitments, proof.A_I1, proof.A_O1, proof.S1); !done)
    return R1CSBlame{done.error(), {}};
  proof.A_I2 = *detail::sum_of(second, &R1CSSecondPhaseShare::A_I2);
  proof.A_O2 = *detail::sum_of(second, &R1CSSecondPhaseShare::A_O2);
  proof.S2 = *detail::sum_of(second, &R1CSSecondPhaseShare::S2);
  if (auto done = r.challenges_yz(proof.A_I2, proof.A_O2, proof.S2); !done) return R1CSBlame{done.error(), {}};
  proof.T_1 = *detail::sum_of(poly, &R1CSPolyShare::T_1);
  proof.T_3 = *detail::sum_of(poly, &R1CSPolyShare::T_3);
  proof.T_4 = *detail::sum_of(poly, &R1CSPolyShare::T_4);
  proof.T_5 = *detail::sum_of(poly, &R1CSPolyShare::T_5);
  proof.T_6 = *detail::sum_of(poly, &R1CSPolyShare::T_6);
  r.challenges_ux({proof.T_1, proof.T_3, proof.T_4, proof.T_5, proof.T_6});

  // The parties' slices in place, the padding as the single prover pads.
  std::vector<Scalar> l_vec(r.padded_n), r_vec(r.padded_n);
  std::vector<std::vector<size_t>>& mine = a.mine;
  std::vector<size_t>& first_commitment = a.first_commitment;
  mine.resize(items);
  first_commitment.assign(items, 0);
  std::vector<size_t> short_shares;
  for (size_t k = 0; k < items; ++k) {
    mine[k] = r.multipliers_of(k);
    if (k > 0) first_commitment[k] = first_commitment[k - 1] + list.items()[k - 1].commitments();
    if (shares[k].l.size() != mine[k].size() || shares[k].r.size() != mine[k].size()) short_shares.push_back(k);
  }
  if (!short_shares.empty())
    return refuse(R1CSErrorKind::FormatError, "shares that are not one per the item's multipliers", short_shares);
  if (!prove) return a;
  for (size_t k = 0; k < items; ++k) {
    for (size_t n = 0; n < mine[k].size(); ++n) {
      l_vec[mine[k][n]] = shares[k].l[n];
      r_vec[mine[k][n]] = shares[k].r[n];
    }
    proof.t_x += shares[k].t_x;
    proof.t_x_blinding += shares[k].t_x_blinding;
    proof.e_blinding += shares[k].e_blinding;
  }
  for (size_t i = r.n; i < r.padded_n; ++i) r_vec[i] = -r.exp_y[i];
  append_scalar(r.transcript, "t_x", proof.t_x);
  append_scalar(r.transcript, "t_x_blinding", proof.t_x_blinding);
  append_scalar(r.transcript, "e_blinding", proof.e_blinding);
  const PedersenGens& pc = r1cs_pedersen();
  const BulletproofGens& gens = r1cs_generators(list.generators_capacity());
  const Scalar w = challenge_scalar(r.transcript, "w");
  const RistrettoPoint Q = pc.B * w;
  std::vector<Scalar> G_factors(r.padded_n), H_factors(r.padded_n);
  for (size_t i = 0; i < r.padded_n; ++i) {
    G_factors[i] = i < r.n1 ? Scalar::one() : r.u;
    H_factors[i] = r.exp_y_inv[i] * G_factors[i];
  }
  proof.ipp_proof = InnerProductProof::create(r.transcript, Q, G_factors, H_factors, gens.G_tables(0, r.padded_n),
                                              gens.H_tables(0, r.padded_n), std::move(l_vec), std::move(r_vec));
  return a;
}

std::vector<size_t> blamed_shares(const Assembly& a, std::span<const R1CSFirstPhaseShare> first,
                                  std::span<const R1CSSecondPhaseShare> second, std::span<const R1CSPolyShare> poly,
                                  std::span<const R1CSProofShare> shares) {
  std::vector<size_t> blamed;
  for (size_t k = 0; k < shares.size(); ++k)
    if (!shares_fit(*a.replay, k, a.mine[k], a.first_commitment[k], first[k], second[k], poly[k], shares[k]))
      blamed.push_back(k);
  return blamed;
}

}  // namespace

Result<R1CSAggregate, R1CSBlame> assemble_r1cs(const GadgetList& list, std::string_view label,
                                               std::span<const R1CSFirstPhaseShare> first,
                                               std::span<const R1CSSecondPhaseShare> second,
                                               std::span<const R1CSPolyShare> poly,
                                               std::span<const R1CSProofShare> shares) {
  auto a = assemble(list, label, first, second, poly, shares, true);
  if (!a) return a.error();
  return std::move(a->out);
}

std::vector<size_t> audit_r1cs_shares(const GadgetList& list, std::string_view label,
                                      std::span<const R1CSFirstPhaseShare> first,
                                      std::span<const R1CSSecondPhaseShare> second, std::span<const R1CSPolyShare> poly,
                                      std::span<const R1CSProofShare> shares) {
  auto a = assemble(list, label, first, second, poly, shares, false);
  if (!a) return a.error().blamed;
  return blamed_shares(*a, first, second, poly, shares);
}

Result<R1CSAggregate, R1CSBlame> aggregate_r1cs(const GadgetList& list, std::string_view label,
                                                std::span<const R1CSFirstPhaseShare> first,
                                                std::span<const R1CSSecondPhaseShare> second,
                                                std::span<const R1CSPolyShare> poly,
                                                std::span<const R1CSProofShare> shares) {
  auto a = assemble(list, label, first, second, poly, shares, true);
  if (!a) return a.error();
  if (verify_gadget_list(list, label, a->out.commitments, a->out.proof)) return std::move(a->out);
  return R1CSBlame{R1CSError{R1CSErrorKind::VerificationError, "the aggregated proof does not verify"},
                   blamed_shares(*a, first, second, poly, shares)};
}

}  // namespace bp
