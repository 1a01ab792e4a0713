// The data behind the type-state classes (not installed). Each public state class owns one
// of these through a unique_ptr; moving a state moves the pointer, which is what makes a
// moved-from state detectably empty.
#pragma once

#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "bp/aggregation.hpp"
#include "bp/mpc/dealer.hpp"
#include "bp/mpc/party.hpp"
#include "bp/random.hpp"
#include "bp/transcript.hpp"
#include "type_state_moves.hpp"

namespace bp::mpc::detail {

// What both sides hold for a session: generators, parameters and randomness.
struct SessionContext {
  const BulletproofGens* bp_gens = nullptr;
  const PedersenGens* pc_gens = nullptr;
  SessionParams params;
  std::unique_ptr<RandomSource> owned_rng;
  RandomSource* rng = nullptr;  // owned_rng, or a test's deterministic source

  // Fails with InvalidParameters unless n, m and the generators fit together.
  static MpcResult<SessionContext> make(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                        const SessionParams& params, std::unique_ptr<RandomSource> owned_rng,
                                        RandomSource* rng);
};

struct PartyState : SessionContext {
  Transcript transcript;  // our own replay of the dealer's transcript

  uint64_t value = 0;
  Scalar blinding;
  size_t position = 0;
  PartyBitSecrets bit_secrets;
  PartyPolySecrets poly_secrets;

  BitCommitment bit_commitment;
  std::optional<BitChallengeMsg> answered_bit;
  PolyCommitment poly_reply;
  std::optional<PolyChallengeMsg> answered_poly;
  ProofShare share;

  explicit PartyState(SessionContext ctx) : SessionContext(std::move(ctx)), transcript(params.label) {}
  ~PartyState();
};

struct PartyFactory {
  // allow_out_of_range lets a test make a party that follows the protocol with a value
  // outside [0, 2^n), as the reference's vectors do, so the dealer's audit can be checked.
  static MpcResult<PartyAwaitingPosition> create(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                 const SessionParams& params, uint64_t value, const Scalar& blinding,
                                                 std::unique_ptr<RandomSource> owned_rng, RandomSource* rng,
                                                 bool allow_out_of_range);
};

// A padding party run by the dealer, whichever round it is in.
using PaddingParty = std::variant<std::monostate, PartyAwaitingPosition, PartyAwaitingBitChallenge,
                                  PartyAwaitingPolyChallenge, PartyAwaitingResult>;

struct DealerState : SessionContext {
  Transcript transcript;

  std::vector<PaddingParty> padding;
  std::vector<PolyCommitment> padding_poly;
  std::vector<ProofShare> padding_shares;

  std::vector<BitCommitment> bit_commitments;  // all padded_m
  DealerBitRound bit_round;
  std::vector<PolyCommitment> poly_commitments;  // all padded_m
  DealerPolyRound poly_round;

  explicit DealerState(SessionContext ctx) : SessionContext(std::move(ctx)), transcript(params.label) {}
};

struct DealerFactory {
  static MpcResult<DealerAwaitingBitCommitments> create(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                        const SessionParams& params,
                                                        std::unique_ptr<RandomSource> owned_rng, RandomSource* rng);
};

// Positions whose points do not decode, or are the identity where that is not allowed
// (A_j, S_j, T_1j, T_2j; V_j may be the identity: value 0 with blinding 0).
std::vector<size_t> malformed_bit_commitments(std::span<const BitCommitment> commitments);
std::vector<size_t> malformed_poly_commitments(std::span<const PolyCommitment> commitments);
std::vector<size_t> wrong_size_shares(std::span<const ProofShare> shares, size_t n);

inline MpcError malicious_dealer(std::string why) { return {MpcErrorKind::MaliciousDealer, {}, std::move(why)}; }

}  // namespace bp::mpc::detail
