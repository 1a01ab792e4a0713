// What a range session does that a gadget session does not: its dealer rebuilt from the
// padding seed and the decided rounds, its three rounds (bounded values checked, challenges
// after the record holds what decided them), its final proof to the checker, and its signed
// result. The machine they run in is session.cpp.
#include <boost/asio/post.hpp>

#include "bp/wire/auth.hpp"
#include "observability/log.hpp"
#include "session/inbox.hpp"
#include "session/session.hpp"

namespace bp::server {

namespace asio = boost::asio;

// The padding parties from the seed, then rounds 1 and 2 if the checkpoint decided them.
std::optional<std::string> AggregationSession::replay_range_rounds() {
  auto fresh = mpc::DealerAwaitingBitCommitments::create(*env_.bp_gens, *env_.pc_gens, params_, padding_seed_);
  if (!fresh) {
    abort(AbortKind::Internal, mpc::describe(fresh.error()), {});
    return std::nullopt;
  }
  dealer_ = std::move(*fresh);
  if (restored_.bit_commitments.empty()) return std::nullopt;
  auto bits = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_))
                  .receive_bit_commitments(restored_.bit_commitments);
  if (!bits) return mpc::describe(bits.error());
  dealer_ = std::move(bits->first);
  accepted_bits_ = restored_.bit_commitments;
  last_broadcast_ = frame_of(bits->second);
  for (size_t j = 0; j < seats_.size(); ++j) last_accepted_[j] = accepted_of_seat(j, accepted_bits_);
  if (restored_.poly_commitments.empty()) return std::nullopt;
  auto polys = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_))
                   .receive_poly_commitments(restored_.poly_commitments);
  if (!polys) return mpc::describe(polys.error());
  dealer_ = std::move(polys->first);
  accepted_polys_ = restored_.poly_commitments;
  last_broadcast_ = frame_of(polys->second);
  for (size_t j = 0; j < seats_.size(); ++j) last_accepted_[j] = accepted_of_seat(j, accepted_polys_);
  return std::nullopt;
}

// A range session's round: its challenge goes out only once the record holds what decided it.
void AggregationSession::complete_range_round(Phase completed) {
  // The round decided: the dealer moves on, and its challenge goes out once the record holds it.
  const auto challenge_after = [this](auto next_dealer, Frame challenge) {
    dealer_ = std::move(next_dealer);
    next_round_once_recorded(std::move(challenge));
  };
  if (completed == Phase::BitCommitments) {
    auto bits = collect<BitCommitment>(inbox_);
    if (auto bad = bad_bounded_seats(bits); !bad.empty()) {
      std::vector<size_t> blamed;
      for (size_t j : bad)
        for (size_t p : blame_of_seat(j)) blamed.push_back(p);
      return abort(AbortKind::InvalidShares,
                   "MalformedBitCommitments: a bounded value's two positions do not add up to (max - min)·B",
                   std::move(blamed));
    }
    auto next = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_)).receive_bit_commitments(bits);
    if (!next) return abort_blaming(next.error());
    accepted_bits_ = std::move(bits);
    challenge_after(std::move(next->first), frame_of(next->second));
  } else if (completed == Phase::PolyCommitments) {
    auto polys = collect<PolyCommitment>(inbox_);
    auto next = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_)).receive_poly_commitments(polys);
    if (!next) return abort_blaming(next.error());
    accepted_polys_ = std::move(polys);
    challenge_after(std::move(next->first), frame_of(next->second));
  } else if (completed == Phase::ProofShares) {
    auto assembled =
        std::move(std::get<mpc::DealerAwaitingProofShares>(dealer_)).assemble_shares(collect<ProofShare>(inbox_));
    if (!assembled) return abort_blaming(assembled.error());
    if (!env_.checker) return checked(std::move(*assembled).check());
    dealer_ = Checking{};
    deadline_.cancel();
    env_.checker->check(std::move(*assembled), params_.padded_m(), [self = shared_from_this()](auto result) {
      asio::post(self->strand_, [self, result = std::move(result)]() mutable { self->checked(std::move(result)); });
    });
  }
}

void AggregationSession::checked(mpc::MpcResult<mpc::AggregationResult> result) {
  // Moved on meanwhile (lost its lease, taken over): the replica that has it now finishes it.
  if (std::holds_alternative<Moved>(dealer_) || std::holds_alternative<Ended>(dealer_)) return;
  if (!result) return abort_blaming(result.error());
  finish_ok(std::move(*result));
}

void AggregationSession::finish_ok(mpc::AggregationResult result) {
  wire::ResultMsg signed_result{std::move(result), std::nullopt, terms_.bounds};
  const auto& dealer = *env_.dealer_key;
  signed_result.attestation = wire::Attestation{
      id(), dealer.public_key(), dealer.sign(wire::result_statement(dealer.public_key(), id(), signed_result.result))};
  auto outcome = SessionOutcome{id(), params_, true, {}, {}, signed_result, seats_.size()};
  record_then(std::move(outcome), [this, signed_result = std::move(signed_result)] {
    env_.metrics->session_completed();
    log::info("session completed", {{"session", id()},
                                    {"proof_bytes", signed_result.result.proof.to_bytes().size()},
                                    {"parties", seats_.size()},
                                    {"positions", params_.positions},
                                    {"epoch", epoch_}});
    broadcast(frame_of(signed_result));
    answer_late_joiners(last_broadcast_);
    close_all();
  });
}

}  // namespace bp::server
