// A gadget session's kind (session_kind.hpp): a seat proves the list's item at its index, and
// its dealer has no randomness of its own, so a checkpoint replays its decided rounds as they
// were. Four rounds, each one's broadcast every seat's message of it (the parties draw the
// challenges themselves); the last gives the proof, checked and then signed over the r1cs
// result statement. It decides; session.cpp does the rest.
#include <type_traits>

#include "bp/wire/auth.hpp"
#include "session/inbox.hpp"
#include "session/session_kind.hpp"

namespace bp::server {

namespace {

using Phase = SessionPhase;
using std::type_identity;

class GadgetKind final : public SessionKind {
 public:
  explicit GadgetKind(const SessionTerms& terms) : params_(terms.params), list_(*terms.gadgets) {}

  std::variant<Replayed, Abort, std::string> replay(const wire::DealerCheckpoint& restored) override {
    auto fresh = mpc::R1CSDealerAwaitingFirstPhases::create(list_, params_.label);
    if (!fresh) return Abort{AbortKind::Internal, mpc::describe(fresh.error()), {}};
    dealer_ = std::move(*fresh);
    Replayed out{nullptr, std::vector<std::vector<uint8_t>>(list_.items().size())};
    // One decided round: fed to the dealer as it was, kept, and its broadcast and every
    // seat's message remembered (a resumed party's repeat is compared with them).
    const auto replay_round = [&](auto awaiting, auto broadcast, const auto& decided,
                                  auto& accepted) -> std::optional<std::string> {
      using Awaiting = typename decltype(awaiting)::type;
      using Broadcast = typename decltype(broadcast)::type;
      auto next = std::move(std::get<Awaiting>(dealer_)).receive(decided);
      if (!next) return mpc::describe(next.error());
      dealer_ = std::move(*next);
      accepted = decided;
      out.last_broadcast = frame_of(Broadcast{accepted});
      for (size_t j = 0; j < accepted.size(); ++j) out.last_accepted[j] = wire::encode(wire::Message{accepted[j]});
      return std::nullopt;
    };
    if (restored.r1cs_first_phases.empty()) return out;
    if (auto why = replay_round(type_identity<mpc::R1CSDealerAwaitingFirstPhases>{},
                                type_identity<wire::R1CSFirstPhases>{}, restored.r1cs_first_phases, accepted_first_))
      return *why;
    if (restored.r1cs_second_phases.empty()) return out;
    if (auto why = replay_round(type_identity<mpc::R1CSDealerAwaitingSecondPhases>{},
                                type_identity<wire::R1CSSecondPhases>{}, restored.r1cs_second_phases, accepted_second_))
      return *why;
    if (restored.r1cs_poly_commitments.empty()) return out;
    if (auto why = replay_round(type_identity<mpc::R1CSDealerAwaitingPolys>{}, type_identity<wire::R1CSPolyShares>{},
                                restored.r1cs_poly_commitments, accepted_polys_))
      return *why;
    return out;
  }

  Phase phase(bool all_seated) const override {
    if (std::holds_alternative<mpc::R1CSDealerAwaitingFirstPhases>(dealer_))
      return all_seated ? Phase::FirstPhases : Phase::Joining;
    if (std::holds_alternative<mpc::R1CSDealerAwaitingSecondPhases>(dealer_)) return Phase::SecondPhases;
    if (std::holds_alternative<mpc::R1CSDealerAwaitingPolys>(dealer_)) return Phase::PolyCommitments;
    if (std::holds_alternative<mpc::R1CSDealerAwaitingShares>(dealer_)) return Phase::ProofShares;
    if (std::holds_alternative<mpc::R1CSDealerCheckingProof>(dealer_)) return Phase::Done;
    return Phase::Joining;  // not made yet
  }

  int round_of(Phase now) const override {
    return now == Phase::Joining || now == Phase::FirstPhases ? 4
           : now == Phase::SecondPhases                       ? 5
           : now == Phase::PolyCommitments                    ? 6
           : now == Phase::ProofShares                        ? 7
                                                              : 0;
  }

  // The party's gadget against the seat's item: texts the operator and the party chose
  // before any value was committed.
  std::optional<std::string> misfit(const SeatShape& seat, const PartyStatement& statement) const override {
    const GadgetItem& item = list_.items()[seat.first_position];
    const std::string where = "seat " + std::to_string(seat.first_position) + " proves " + item.text();
    if (!statement.states_gadget)
      return where + ": this is a gadget session, and the party states no gadget (wire 1.5)";
    if (!statement.gadget) return "the party's gadget is not one gadget list item";
    if (statement.gadget->text() != item.text()) return where + "; the party states " + statement.gadget->text();
    return std::nullopt;
  }

  // A seat's round message against its gadget's shape (commitments, multipliers).
  std::optional<std::string> message_misfit(const SeatShape& seat, const wire::Message& message) const override {
    const GadgetItem& gadget = list_.items()[seat.first_position];
    const std::string where = "seat " + std::to_string(seat.first_position) + " (" + gadget.text() + ")";
    if (const auto* first = std::get_if<R1CSFirstPhaseShare>(&message);
        first && first->V.size() != gadget.commitments())
      return "MalformedPhaseShares: " + where + " sent " + std::to_string(first->V.size()) +
             " commitments in its first phase; its gadget has " + std::to_string(gadget.commitments());
    if (const auto* share = std::get_if<R1CSProofShare>(&message);
        share && (share->l.size() != gadget.multipliers() || share->r.size() != gadget.multipliers()))
      return "MalformedProofShares: " + where + " sent a share over " + std::to_string(share->l.size()) +
             " multipliers; its gadget has " + std::to_string(gadget.multipliers());
    return std::nullopt;
  }

  Decision complete(Phase completed, std::vector<std::optional<wire::Message>>& inbox) override {
    // A phase decided: the dealer moves on, and every seat's message of it goes back to
    // every party once the record holds them.
    const auto decide = [&](auto awaiting, auto broadcast, auto& accepted) -> Decision {
      using Awaiting = typename decltype(awaiting)::type;
      using Broadcast = typename decltype(broadcast)::type;
      auto all = collect<typename std::decay_t<decltype(accepted)>::value_type>(inbox);
      auto next = std::move(std::get<Awaiting>(dealer_)).receive(all);
      if (!next) return blaming(next.error());
      dealer_ = std::move(*next);
      accepted = std::move(all);
      return NextRound{frame_of(Broadcast{accepted})};
    };
    if (completed == Phase::FirstPhases)
      return decide(type_identity<mpc::R1CSDealerAwaitingFirstPhases>{}, type_identity<wire::R1CSFirstPhases>{},
                    accepted_first_);
    if (completed == Phase::SecondPhases)
      return decide(type_identity<mpc::R1CSDealerAwaitingSecondPhases>{}, type_identity<wire::R1CSSecondPhases>{},
                    accepted_second_);
    if (completed == Phase::PolyCommitments)
      return decide(type_identity<mpc::R1CSDealerAwaitingPolys>{}, type_identity<wire::R1CSPolyShares>{},
                    accepted_polys_);
    auto assembled =
        std::move(std::get<mpc::R1CSDealerAwaitingShares>(dealer_)).assemble(collect<R1CSProofShare>(inbox));
    if (!assembled) return blaming(assembled.error());
    dealer_ = std::move(*assembled);
    return Assembled{};
  }

  void check(ProofChecker* checker, std::function<void(std::optional<Abort>)> done) override {
    auto assembled = std::move(std::get<mpc::R1CSDealerCheckingProof>(dealer_));
    dealer_ = std::monostate{};
    const auto decided = [this, done = std::move(done)](mpc::MpcResult<R1CSAggregate> result) {
      if (!result) return done(blaming(result.error()));
      result_ = std::move(*result);
      done(std::nullopt);
    };
    if (!checker) return decided(std::move(assembled).check());
    checker->check(std::move(assembled), decided);
  }

  Signed sign(const wire::Identity& dealer, const std::string& session_id, size_t parties) override {
    wire::R1CSResultMsg signed_result{list_.text(), params_.label, std::move(result_->commitments),
                                      std::move(result_->proof), std::nullopt};
    result_.reset();
    signed_result.attestation =
        wire::Attestation{session_id, dealer.public_key(),
                          dealer.sign(wire::r1cs_result_statement(dealer.public_key(), session_id, signed_result))};
    const size_t proof_bytes = signed_result.proof.serialized_size();
    Frame frame = frame_of(signed_result);
    return {std::move(frame),
            SessionOutcome{session_id, params_, true, {}, {}, std::nullopt, parties, std::move(signed_result)},
            proof_bytes, list_.text()};
  }

  void checkpoint(wire::DealerCheckpoint& c) const override {
    c.gadgets = list_.text();
    c.r1cs_first_phases = accepted_first_;
    c.r1cs_second_phases = accepted_second_;
    c.r1cs_poly_commitments = accepted_polys_;
  }

 private:
  // A gadget session's seats are its positions: mpc's blame names them directly.
  static Abort blaming(const mpc::MpcError& e) { return {AbortKind::InvalidShares, mpc::describe(e), e.blamed}; }

  const mpc::SessionParams& params_;
  const GadgetList& list_;
  // monostate until replay() makes the dealer, and again once its proof went to the check.
  std::variant<std::monostate, mpc::R1CSDealerAwaitingFirstPhases, mpc::R1CSDealerAwaitingSecondPhases,
               mpc::R1CSDealerAwaitingPolys, mpc::R1CSDealerAwaitingShares, mpc::R1CSDealerCheckingProof>
      dealer_;
  // The decided rounds (the checkpoint's), one message per seat.
  std::vector<R1CSFirstPhaseShare> accepted_first_;
  std::vector<R1CSSecondPhaseShare> accepted_second_;
  std::vector<R1CSPolyShare> accepted_polys_;
  std::optional<R1CSAggregate> result_;
};

}  // namespace

std::unique_ptr<SessionKind> make_gadget_kind(const SessionTerms& terms, const SessionEnv&) {
  return std::make_unique<GadgetKind>(terms);
}

// The one place the kind is decided: the registry asks once, for a new session and for one
// taken over from its checkpoint alike.
std::unique_ptr<SessionKind> make_session_kind(const SessionTerms& terms, const SessionEnv& env) {
  return terms.gadgets ? make_gadget_kind(terms, env) : make_range_kind(terms, env);
}

}  // namespace bp::server
