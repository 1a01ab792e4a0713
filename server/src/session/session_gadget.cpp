// What a gadget session does that a range session does not: its dealer rebuilt from the
// decided rounds (it has no randomness of its own), four rounds whose broadcast is every
// seat's message, its final proof to the checker, and its signed r1cs result. The machine
// they run in is session.cpp.
#include <boost/asio/post.hpp>
#include <type_traits>

#include "bp/wire/auth.hpp"
#include "observability/log.hpp"
#include "session/inbox.hpp"
#include "session/session.hpp"

namespace bp::server {

namespace asio = boost::asio;

// A gadget session's dealer has no randomness of its own: the rounds decided are replayed
// as they were, each one's broadcast being every seat's message of it.
std::optional<std::string> AggregationSession::replay_gadget_rounds() {
  auto fresh = mpc::R1CSDealerAwaitingFirstPhases::create(*terms_.gadgets, params_.label);
  if (!fresh) {
    abort(AbortKind::Internal, mpc::describe(fresh.error()), {});
    return std::nullopt;
  }
  dealer_ = std::move(*fresh);
  // One decided round: fed to the dealer as it was, kept, and its broadcast and every seat's
  // message remembered (a resumed party's repeat is compared with them).
  const auto replay = [&](auto awaiting, auto broadcast, const auto& decided,
                          auto& accepted) -> std::optional<std::string> {
    using Awaiting = typename decltype(awaiting)::type;
    using Broadcast = typename decltype(broadcast)::type;
    auto next = std::move(std::get<Awaiting>(dealer_)).receive(decided);
    if (!next) return mpc::describe(next.error());
    dealer_ = std::move(*next);
    accepted = decided;
    last_broadcast_ = frame_of(Broadcast{accepted});
    for (size_t j = 0; j < seats_.size(); ++j) last_accepted_[j] = wire::encode(wire::Message{accepted[j]});
    return std::nullopt;
  };
  using std::type_identity;
  if (restored_.r1cs_first_phases.empty()) return std::nullopt;
  if (auto why = replay(type_identity<mpc::R1CSDealerAwaitingFirstPhases>{}, type_identity<wire::R1CSFirstPhases>{},
                        restored_.r1cs_first_phases, accepted_first_))
    return why;
  if (restored_.r1cs_second_phases.empty()) return std::nullopt;
  if (auto why = replay(type_identity<mpc::R1CSDealerAwaitingSecondPhases>{}, type_identity<wire::R1CSSecondPhases>{},
                        restored_.r1cs_second_phases, accepted_second_))
    return why;
  if (restored_.r1cs_poly_commitments.empty()) return std::nullopt;
  return replay(type_identity<mpc::R1CSDealerAwaitingPolys>{}, type_identity<wire::R1CSPolyShares>{},
                restored_.r1cs_poly_commitments, accepted_gadget_polys_);
}

// A gadget session's round: every seat's message goes to the dealer, and once the record
// holds them, back to every party (which draws the challenges from them itself). The last
// round's shares give the proof, checked before it is signed.
void AggregationSession::complete_gadget_round(Phase completed) {
  // A phase decided: the dealer moves on, and every seat's message of it goes back to every
  // party once the record holds them.
  const auto decide = [this](auto awaiting, auto broadcast, auto& accepted) {
    using Awaiting = typename decltype(awaiting)::type;
    using Broadcast = typename decltype(broadcast)::type;
    auto all = collect<typename std::decay_t<decltype(accepted)>::value_type>(inbox_);
    auto next = std::move(std::get<Awaiting>(dealer_)).receive(all);
    if (!next) return abort_blaming(next.error());
    dealer_ = std::move(*next);
    accepted = std::move(all);
    next_round_once_recorded(frame_of(Broadcast{accepted}));
  };
  using std::type_identity;
  if (completed == Phase::FirstPhases) {
    decide(type_identity<mpc::R1CSDealerAwaitingFirstPhases>{}, type_identity<wire::R1CSFirstPhases>{},
           accepted_first_);
  } else if (completed == Phase::SecondPhases) {
    decide(type_identity<mpc::R1CSDealerAwaitingSecondPhases>{}, type_identity<wire::R1CSSecondPhases>{},
           accepted_second_);
  } else if (completed == Phase::PolyCommitments) {
    decide(type_identity<mpc::R1CSDealerAwaitingPolys>{}, type_identity<wire::R1CSPolyShares>{},
           accepted_gadget_polys_);
  } else if (completed == Phase::ProofShares) {
    deadline_.cancel();
    auto assembled =
        std::move(std::get<mpc::R1CSDealerAwaitingShares>(dealer_)).assemble(collect<R1CSProofShare>(inbox_));
    if (!assembled) return abort_blaming(assembled.error());
    // Checked like a range proof: off the strand, in a batch with other sessions' proofs.
    if (!env_.checker) return gadgets_checked(std::move(*assembled).check());
    dealer_ = Checking{};
    env_.checker->check(std::move(*assembled), [self = shared_from_this()](auto result) {
      asio::post(self->strand_,
                 [self, result = std::move(result)]() mutable { self->gadgets_checked(std::move(result)); });
    });
  }
}

void AggregationSession::gadgets_checked(mpc::MpcResult<R1CSAggregate> result) {
  // Moved on meanwhile (lost its lease, taken over): the replica that has it now finishes it.
  if (std::holds_alternative<Moved>(dealer_) || std::holds_alternative<Ended>(dealer_)) return;
  if (!result) return abort_blaming(result.error());
  finish_gadgets_ok(std::move(*result));
}

void AggregationSession::finish_gadgets_ok(R1CSAggregate aggregate) {
  wire::R1CSResultMsg signed_result{terms_.gadgets->text(), params_.label, std::move(aggregate.commitments),
                                    std::move(aggregate.proof), std::nullopt};
  const auto& dealer = *env_.dealer_key;
  signed_result.attestation = wire::Attestation{
      id(), dealer.public_key(), dealer.sign(wire::r1cs_result_statement(dealer.public_key(), id(), signed_result))};
  auto outcome = SessionOutcome{id(), params_, true, {}, {}, std::nullopt, seats_.size(), signed_result};
  record_then(std::move(outcome), [this, signed_result = std::move(signed_result)] {
    env_.metrics->session_completed();
    log::info("session completed", {{"session", id()},
                                    {"gadgets", signed_result.gadgets},
                                    {"proof_bytes", signed_result.proof.serialized_size()},
                                    {"parties", seats_.size()},
                                    {"epoch", epoch_}});
    broadcast(frame_of(signed_result));
    answer_late_joiners(last_broadcast_);
    close_all();
  });
}

}  // namespace bp::server
