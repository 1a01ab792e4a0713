// The party's slice of a multiparty R1CS session (bp/r1cs_aggregation.hpp): the single
// prover's steps (r1cs_prover.cpp) cut along the owners of the multipliers. A party's
// commitments and shares cover its own multipliers at their global indices (the generators
// G_i, H_i and the powers y^i of the whole system); the sums are the single prover's.
#include "bp/r1cs_aggregation.hpp"

#include <sodium.h>

#include <array>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/random.hpp"
#include "bp/transcript_protocol.hpp"
#include "arith/ctime.hpp"
#include "r1cs/replay.hpp"

namespace bp {
namespace detail {
namespace {

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
  const std::array<RistrettoPoint, 5> T{pc.commit(s.t1, s.tau1), pc.commit(s.t3, s.tau3), pc.commit(s.t4, s.tau4),
                                        pc.commit(s.t5, s.tau5), pc.commit(s.t6, s.tau6)};
  std::array<CompressedRistretto, 5> encoded;
  RistrettoPoint::compress_batch(T, encoded);
  s.poly = {encoded[0], encoded[1], encoded[2], encoded[3], encoded[4]};
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

}  // namespace bp
