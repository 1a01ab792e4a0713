// The party's side of the aggregation protocol as type-states:
//
//   PartyAwaitingPosition --assign_position(j)--> PartyAwaitingBitChallenge   + BitCommitment
//   PartyAwaitingBitChallenge --apply_challenge(BitChallengeMsg)--> PartyAwaitingPolyChallenge + PolyCommitment
//   PartyAwaitingPolyChallenge --apply_challenge(PolyChallengeMsg)--> PartyAwaitingResult + ProofShare
//
// Each state is move-only and each transition is &&-qualified: it consumes the state, so a
// step cannot be skipped, repeated or taken from a copy. A moved-from state answers every
// call with MpcErrorKind::ConsumedState.
//
// The party trusts nothing from the dealer: it recomputes every challenge from its own copy
// of the transcript and the commitments the dealer forwards, and answers MaliciousDealer when
// they differ or a challenge is zero. A later state keeps the reply it sent, so a repeated
// challenge gets the identical reply and a different one for the same round is refused
// (answering two x values would reveal the party's bits).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "bp/generators.hpp"
#include "bp/mpc/errors.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/mpc/session.hpp"
#include "bp/mpc/type_state.hpp"

namespace bp::mpc {

namespace detail {
struct PartyState;    // shared by the four classes below
struct PartyFactory;  // test hook (deterministic randomness), not installed
}  // namespace detail

class PartyAwaitingBitChallenge;
class PartyAwaitingPolyChallenge;
class PartyAwaitingResult;

class PartyAwaitingPosition {
 public:
  // The generators must outlive the party. Refuses a value outside [0, 2^n).
  static MpcResult<PartyAwaitingPosition> create(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                 const SessionParams& params, uint64_t value, const Scalar& blinding);
  // Kept by reference: a temporary would be gone before the first round (a test that passed
  // PedersenGens() read freed memory in its final check), so one does not compile.
  static MpcResult<PartyAwaitingPosition> create(const BulletproofGens&, PedersenGens&&, const SessionParams&, uint64_t,
                                                 const Scalar&) = delete;
  static MpcResult<PartyAwaitingPosition> create(BulletproofGens&&, const PedersenGens&, const SessionParams&, uint64_t,
                                                 const Scalar&) = delete;

  MpcResult<std::pair<PartyAwaitingBitChallenge, BitCommitment>> assign_position(size_t position) &&;

  BP_MPC_TYPE_STATE(PartyAwaitingPosition, detail::PartyState);
  friend struct detail::PartyFactory;
};

class PartyAwaitingBitChallenge {
 public:
  MpcResult<std::pair<PartyAwaitingPolyChallenge, PolyCommitment>> apply_challenge(const BitChallengeMsg& c) &&;

  size_t position() const;
  BP_MPC_TYPE_STATE(PartyAwaitingBitChallenge, detail::PartyState);
  friend class PartyAwaitingPosition;
};

class PartyAwaitingPolyChallenge {
 public:
  MpcResult<std::pair<PartyAwaitingResult, ProofShare>> apply_challenge(const PolyChallengeMsg& c) &&;
  // The reply already sent, if c is the challenge it answered; MaliciousDealer otherwise.
  MpcResult<PolyCommitment> replay(const BitChallengeMsg& c) const;

  size_t position() const;
  BP_MPC_TYPE_STATE(PartyAwaitingPolyChallenge, detail::PartyState);
  friend class PartyAwaitingBitChallenge;
};

class PartyAwaitingResult {
 public:
  // The share already sent, if c is the challenge it answered; MaliciousDealer otherwise.
  MpcResult<ProofShare> replay(const PolyChallengeMsg& c) const;
  // Checks the dealer's result: our commitment at our position, the session's n and label,
  // and a proof that verifies.
  MpcResult<Ok> check_result(const AggregationResult& result) const;
  // The first two of those, without the proof: for a seat of several positions, which checks
  // each position's placement and the one proof they share once (check_result on any of
  // them), not once per position.
  MpcResult<Ok> check_placement(const AggregationResult& result) const;

  size_t position() const;
  BP_MPC_TYPE_STATE(PartyAwaitingResult, detail::PartyState);
  friend class PartyAwaitingPolyChallenge;
};

}  // namespace bp::mpc
