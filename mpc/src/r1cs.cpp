// The type-states of bp/mpc/r1cs.hpp over the multiparty R1CS math (core's
// r1cs_aggregation): each state holds the step's object and nothing else decides.
#include "bp/mpc/r1cs.hpp"

#include <sodium.h>

#include <optional>

#include "bp/mpc/limits.hpp"
#include "type_state_moves.hpp"

namespace bp::mpc {

using detail::consumed;

namespace detail {

struct R1CSPartyHold {
  GadgetItem gadget;
  // Until the seat is taken; then the slice holds them (its own copies) and these are wiped.
  std::vector<uint64_t> values;
  std::vector<Scalar> blindings;
  std::optional<R1CSPartySlice> slice;
  GadgetList list;
  size_t item = 0;
  std::string label;
  std::vector<CompressedRistretto> mine;  // the commitments it sent
  ~R1CSPartyHold() {
    for (auto& b : blindings) b.wipe();
    if (!values.empty()) sodium_memzero(values.data(), values.size() * sizeof(uint64_t));
  }
};

struct R1CSDealerHold {
  GadgetList list;
  std::string label;
  std::vector<R1CSFirstPhaseShare> first;
  std::vector<R1CSSecondPhaseShare> second;
  std::vector<R1CSPolyShare> poly;
  std::vector<R1CSProofShare> shares;  // once assembled
  R1CSAggregate assembled;             // the proof they add up to, not yet verified
};

}  // namespace detail

namespace {

// A party's R1CSError. Once seated, what it is given is the dealer's round: a count, a point
// or its own message misquoted is the dealer's doing; its own values failing a second-phase
// constraint (checked before it sent anything, so only for challenges that differ) is its own.
MpcError from_round(const R1CSError& e) {
  const bool own = e.kind == R1CSErrorKind::Unsatisfied;
  return {own ? MpcErrorKind::ValueOutOfRange : MpcErrorKind::MaliciousDealer, {}, describe(e)};
}
// Before it is seated: its own statement, or the terms.
MpcError from_seat(const R1CSError& e) {
  const bool own = e.kind == R1CSErrorKind::Unsatisfied;
  return {own ? MpcErrorKind::ValueOutOfRange : MpcErrorKind::InvalidParameters, {}, describe(e)};
}

// One message per seat of round `round` ("first phase", ...), or the count is named.
template <class Message>
MpcResult<Ok> one_per_seat(const GadgetList& list, const std::vector<Message>& all, MpcErrorKind kind,
                           const char* round) {
  if (all.size() != list.items().size())
    return MpcError{kind,
                    {},
                    std::string(round) + ": got " + std::to_string(all.size()) + " for " +
                        std::to_string(list.items().size()) + " seats"};
  return Ok{};
}

// Every point of each seat's message decodes, or those seats are named.
template <class Message>
MpcResult<Ok> decodes(const std::vector<Message>& all, MpcErrorKind kind, const char* round,
                      std::vector<CompressedRistretto> (*points)(const Message&)) {
  std::vector<size_t> blamed;
  for (size_t k = 0; k < all.size(); ++k)
    for (const auto& p : points(all[k]))
      if (!RistrettoPoint::decompress(p)) {
        blamed.push_back(k);
        break;
      }
  if (!blamed.empty()) return MpcError{kind, blamed, std::string(round) + ": points that do not decode"};
  return Ok{};
}

std::vector<CompressedRistretto> first_points(const R1CSFirstPhaseShare& m) {
  auto out = m.V;
  out.insert(out.end(), {m.A_I1, m.A_O1, m.S1});
  return out;
}
std::vector<CompressedRistretto> second_points(const R1CSSecondPhaseShare& m) { return {m.A_I2, m.A_O2, m.S2}; }
std::vector<CompressedRistretto> poly_points(const R1CSPolyShare& m) { return {m.T_1, m.T_3, m.T_4, m.T_5, m.T_6}; }

}  // namespace

#define BP_MPC_MOVES(Class, Hold)                                     \
  Class::Class(std::unique_ptr<detail::Hold> s) : s_(std::move(s)) {} \
  BP_MPC_DEFAULT_MOVES(Class)

BP_MPC_MOVES(R1CSPartyAwaitingSeat, R1CSPartyHold)
BP_MPC_MOVES(R1CSPartyAwaitingFirstPhases, R1CSPartyHold)
BP_MPC_MOVES(R1CSPartyAwaitingSecondPhases, R1CSPartyHold)
BP_MPC_MOVES(R1CSPartyAwaitingPolys, R1CSPartyHold)
BP_MPC_MOVES(R1CSPartyAwaitingResult, R1CSPartyHold)
BP_MPC_MOVES(R1CSDealerAwaitingFirstPhases, R1CSDealerHold)
BP_MPC_MOVES(R1CSDealerAwaitingSecondPhases, R1CSDealerHold)
BP_MPC_MOVES(R1CSDealerAwaitingPolys, R1CSDealerHold)
BP_MPC_MOVES(R1CSDealerAwaitingShares, R1CSDealerHold)
BP_MPC_MOVES(R1CSDealerCheckingProof, R1CSDealerHold)
#undef BP_MPC_MOVES

MpcResult<R1CSPartyAwaitingSeat> R1CSPartyAwaitingSeat::create(const GadgetItem& gadget, std::vector<uint64_t> values,
                                                               std::vector<Scalar> blindings) {
  auto s = std::make_unique<detail::R1CSPartyHold>();
  s->gadget = gadget;
  s->values = std::move(values);
  s->blindings = std::move(blindings);
  // Read again from its text: a GadgetItem made by hand (shuffle:0, say) is refused here.
  auto alone = GadgetList::parse(gadget.text());
  if (!alone) return MpcError{MpcErrorKind::InvalidParameters, {}, alone.error()};
  // The statement checked here, on a list of this gadget alone and both phases: a false one
  // is refused now, before any seat is taken.
  auto local = R1CSPartySlice::create(*alone, 0, "local check", s->values, s->blindings);
  if (!local) return MpcError{MpcErrorKind::ValueOutOfRange, {}, describe(local.error())};
  const R1CSFirstPhaseShare first = local->first_phase();
  if (auto second = local->second_phase(std::span(&first, 1)); !second)
    return MpcError{MpcErrorKind::ValueOutOfRange, {}, describe(second.error())};
  return R1CSPartyAwaitingSeat(std::move(s));
}

MpcResult<std::pair<R1CSPartyAwaitingFirstPhases, R1CSFirstPhaseShare>> R1CSPartyAwaitingSeat::take_seat(
    const GadgetList& list, size_t item, std::string label) && {
  if (!s_) return consumed();
  // Public terms only: the same answer whatever the values are. A list over the limits is
  // refused before the slice allocates its generators (the dealer chose its size).
  if (auto over = gadget_list_over_limits(list)) return MpcError{MpcErrorKind::MaliciousDealer, {}, *over};
  if (item >= list.items().size() || list.items()[item].text() != s_->gadget.text())
    return MpcError{
        MpcErrorKind::InvalidParameters,
        {},
        "seat " + std::to_string(item) + " of " + list.text() + " is not this party's " + s_->gadget.text()};
  auto slice = R1CSPartySlice::create(list, item, label, s_->values, s_->blindings);
  if (!slice) return from_seat(slice.error());
  auto first = slice->first_phase();
  s_->mine = first.V;
  s_->slice = std::move(*slice);
  s_->list = list;
  s_->item = item;
  s_->label = std::move(label);
  // From here the slice is the one owner of the values and blindings: the hold's go now.
  sodium_memzero(s_->values.data(), s_->values.size() * sizeof(uint64_t));
  for (auto& b : s_->blindings) b.wipe();
  s_->values.clear();
  s_->blindings.clear();
  return std::pair{R1CSPartyAwaitingFirstPhases(std::move(s_)), std::move(first)};
}

MpcResult<std::pair<R1CSPartyAwaitingSecondPhases, R1CSSecondPhaseShare>> R1CSPartyAwaitingFirstPhases::apply(
    std::span<const R1CSFirstPhaseShare> all) && {
  if (!s_) return consumed();
  auto m = s_->slice->second_phase(all);
  if (!m) return from_round(m.error());
  return std::pair{R1CSPartyAwaitingSecondPhases(std::move(s_)), std::move(*m)};
}

MpcResult<std::pair<R1CSPartyAwaitingPolys, R1CSPolyShare>> R1CSPartyAwaitingSecondPhases::apply(
    std::span<const R1CSSecondPhaseShare> all) && {
  if (!s_) return consumed();
  auto m = s_->slice->poly(all);
  if (!m) return from_round(m.error());
  return std::pair{R1CSPartyAwaitingPolys(std::move(s_)), std::move(*m)};
}

MpcResult<std::pair<R1CSPartyAwaitingResult, R1CSProofShare>> R1CSPartyAwaitingPolys::apply(
    std::span<const R1CSPolyShare> all) && {
  if (!s_) return consumed();
  auto m = s_->slice->share(all);
  if (!m) return from_round(m.error());
  s_->slice.reset();  // its secrets go now
  return std::pair{R1CSPartyAwaitingResult(std::move(s_)), std::move(*m)};
}

MpcResult<Ok> R1CSPartyAwaitingResult::check_result(std::span<const CompressedRistretto> commitments,
                                                    const R1CSProof& proof) const {
  if (!s_) return consumed();
  size_t at = 0;
  for (size_t k = 0; k < s_->item; ++k) at += s_->list.items()[k].commitments();
  if (commitments.size() != s_->list.commitments() ||
      !std::equal(s_->mine.begin(), s_->mine.end(), commitments.begin() + static_cast<std::ptrdiff_t>(at),
                  [](const auto& a, const auto& b) { return a.bytes == b.bytes; }))
    return MpcError{MpcErrorKind::MaliciousDealer, {}, "the result does not hold this party's commitments in its seat"};
  if (auto ok = verify_gadget_list(s_->list, s_->label, commitments, proof); !ok)
    return MpcError{MpcErrorKind::MaliciousDealer, {}, "the result does not verify: " + describe(ok.error())};
  return Ok{};
}

MpcResult<R1CSDealerAwaitingFirstPhases> R1CSDealerAwaitingFirstPhases::create(GadgetList list, std::string label) {
  if (list.items().empty()) return MpcError{MpcErrorKind::InvalidParameters, {}, "a session of no seats"};
  auto s = std::make_unique<detail::R1CSDealerHold>();
  s->list = std::move(list);
  s->label = std::move(label);
  return R1CSDealerAwaitingFirstPhases(std::move(s));
}

MpcResult<R1CSDealerAwaitingSecondPhases> R1CSDealerAwaitingFirstPhases::receive(
    std::vector<R1CSFirstPhaseShare> all) && {
  if (!s_) return consumed();
  constexpr const char* round = "first phase";
  if (auto ok = one_per_seat(s_->list, all, MpcErrorKind::WrongNumPhaseShares, round); !ok) return ok.error();
  std::vector<size_t> wrong;
  for (size_t k = 0; k < all.size(); ++k)
    if (all[k].V.size() != s_->list.items()[k].commitments()) wrong.push_back(k);
  if (!wrong.empty())
    return MpcError{MpcErrorKind::MalformedPhaseShares, wrong,
                    std::string(round) + ": commitments that are not their gadget's count"};
  if (auto ok = decodes(all, MpcErrorKind::MalformedPhaseShares, round, &first_points); !ok) return ok.error();
  s_->first = std::move(all);
  return R1CSDealerAwaitingSecondPhases(std::move(s_));
}

MpcResult<R1CSDealerAwaitingPolys> R1CSDealerAwaitingSecondPhases::receive(std::vector<R1CSSecondPhaseShare> all) && {
  if (!s_) return consumed();
  constexpr const char* round = "second phase";
  if (auto ok = one_per_seat(s_->list, all, MpcErrorKind::WrongNumPhaseShares, round); !ok) return ok.error();
  if (auto ok = decodes(all, MpcErrorKind::MalformedPhaseShares, round, &second_points); !ok) return ok.error();
  s_->second = std::move(all);
  return R1CSDealerAwaitingPolys(std::move(s_));
}

MpcResult<R1CSDealerAwaitingShares> R1CSDealerAwaitingPolys::receive(std::vector<R1CSPolyShare> all) && {
  if (!s_) return consumed();
  constexpr const char* round = "poly commitments";
  if (auto ok = one_per_seat(s_->list, all, MpcErrorKind::WrongNumPolyCommitments, round); !ok) return ok.error();
  if (auto ok = decodes(all, MpcErrorKind::MalformedPolyCommitments, round, &poly_points); !ok) return ok.error();
  s_->poly = std::move(all);
  return R1CSDealerAwaitingShares(std::move(s_));
}

MpcResult<R1CSDealerCheckingProof> R1CSDealerAwaitingShares::assemble(std::vector<R1CSProofShare> all) && {
  if (!s_) return consumed();
  if (auto ok = one_per_seat(s_->list, all, MpcErrorKind::WrongNumProofShares, "proof shares"); !ok) return ok.error();
  auto out = assemble_r1cs(s_->list, s_->label, s_->first, s_->second, s_->poly, all);
  if (!out)
    return MpcError{MpcErrorKind::MalformedProofShares, out.error().blamed,
                    std::string(describe(out.error().error.kind)) + ": " + out.error().error.detail};
  s_->shares = std::move(all);
  s_->assembled = std::move(*out);
  return R1CSDealerCheckingProof(std::move(s_));
}

size_t R1CSDealerCheckingProof::generators() const { return s_ ? s_->list.generators_capacity() : 0; }

MpcResult<R1CSAggregate> R1CSDealerCheckingProof::check() && {
  if (!s_) return consumed();
  std::vector<R1CSDealerCheckingProof> one;
  one.push_back(std::move(*this));
  return std::move(check_batch(std::move(one)).front());
}

std::vector<MpcResult<R1CSAggregate>> R1CSDealerCheckingProof::check_batch(
    std::vector<R1CSDealerCheckingProof> dealers) {
  std::vector<GadgetListStatement> statements;
  std::vector<size_t> live;
  for (size_t k = 0; k < dealers.size(); ++k)
    if (const auto& s = dealers[k].s_) {
      live.push_back(k);
      statements.push_back({&s->list, s->label, s->assembled.commitments, &s->assembled.proof});
    }
  std::vector<bool> failed(dealers.size(), false);
  if (statements.size() == 1) {
    const auto& s = *dealers[live[0]].s_;
    failed[live[0]] = !verify_gadget_list(s.list, s.label, s.assembled.commitments, s.assembled.proof);
  } else if (!statements.empty()) {
    for (size_t i : verify_gadget_lists(statements).failed) failed[live[i]] = true;
  }
  std::vector<MpcResult<R1CSAggregate>> answers;
  answers.reserve(dealers.size());
  for (size_t k = 0; k < dealers.size(); ++k) {
    auto& s = dealers[k].s_;
    if (!s) {
      answers.push_back(consumed());
    } else if (!failed[k]) {
      answers.push_back(std::move(s->assembled));
    } else {
      // The proof fails: the seats whose shares do not fit their own commitments.
      answers.push_back(
          MpcError{MpcErrorKind::MalformedProofShares,
                   audit_r1cs_shares(s->list, s->label, s->first, s->second, s->poly, s->shares),
                   std::string(describe(R1CSErrorKind::VerificationError)) + ": the aggregated proof does not verify"});
    }
    s.reset();
  }
  return answers;
}

MpcResult<R1CSAggregate> R1CSDealerAwaitingShares::receive(std::vector<R1CSProofShare> all) && {
  auto checking = std::move(*this).assemble(std::move(all));
  if (!checking) return checking.error();
  return std::move(*checking).check();
}

}  // namespace bp::mpc
