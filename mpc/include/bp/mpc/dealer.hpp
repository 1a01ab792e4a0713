// The dealer's side of the aggregation protocol as type-states:
//
//   DealerAwaitingBitCommitments --receive_bit_commitments--> DealerAwaitingPolyCommitments + BitChallengeMsg
//   DealerAwaitingPolyCommitments --receive_poly_commitments--> DealerAwaitingProofShares + PolyChallengeMsg
//   DealerAwaitingProofShares --receive_shares--> AggregationResult (the RangeProof), or blame
//
// receive_shares is two steps, which a service that runs many sessions may take apart:
//
//   DealerAwaitingProofShares --assemble_shares--> DealerCheckingProof --check--> AggregationResult, or blame
//
// and check the proofs of several sessions that end together in one batch verification
// (check_batch), which costs about a third of a verification per proof. Either way the
// result leaves the dealer only once its proof has verified.
//
// Move-only, &&-qualified transitions, ConsumedState after a move, like the party's.
// Every incoming message is validated before use; an error names the
// positions at fault. When the assembled proof does not verify, every share is audited
// against its own position's commitments and the bad ones are named (MalformedProofShares).
//
// Any number of real positions from 1 to kMaxPositions (256) is accepted: the dealer
// completes the next power of two with padding positions it runs itself (value 0, blinding 0).
//
// A dealer is rebuilt from what it accepted: the same padding seed and the same messages,
// fed through the same transitions, give the same challenges and the same proof, byte for
// byte (the challenges come from the transcript, the padding positions' randomness from the
// seed). That is how another replica takes a session over from a checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "bp/generators.hpp"
#include "bp/mpc/errors.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/mpc/session.hpp"
#include "bp/mpc/type_state.hpp"

namespace bp::mpc {

namespace detail {
struct DealerState;
struct DealerFactory;  // test hook (deterministic randomness), not installed
}  // namespace detail

class DealerAwaitingPolyCommitments;
class DealerAwaitingProofShares;
class DealerCheckingProof;

inline constexpr size_t kPaddingSeedBytes = 32;

class DealerAwaitingBitCommitments {
 public:
  // The generators must outlive the dealer and hold `bits` bits for padded_m positions.
  static MpcResult<DealerAwaitingBitCommitments> create(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                        const SessionParams& params);
  // The padding positions' randomness from `padding_seed` (32 bytes the caller drew and keeps
  // in its checkpoint). They prove value 0 with blinding 0, so the seed hides nothing.
  static MpcResult<DealerAwaitingBitCommitments> create(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                        const SessionParams& params,
                                                        std::span<const uint8_t, kPaddingSeedBytes> padding_seed);
  // Kept by reference: temporaries do not compile (as for the party).
  static MpcResult<DealerAwaitingBitCommitments> create(const BulletproofGens&, PedersenGens&&,
                                                        const SessionParams&) = delete;
  static MpcResult<DealerAwaitingBitCommitments> create(BulletproofGens&&, const PedersenGens&,
                                                        const SessionParams&) = delete;
  static MpcResult<DealerAwaitingBitCommitments> create(const BulletproofGens&, PedersenGens&&, const SessionParams&,
                                                        std::span<const uint8_t, kPaddingSeedBytes>) = delete;
  static MpcResult<DealerAwaitingBitCommitments> create(BulletproofGens&&, const PedersenGens&, const SessionParams&,
                                                        std::span<const uint8_t, kPaddingSeedBytes>) = delete;

  // One commitment per real position, in position order.
  MpcResult<std::pair<DealerAwaitingPolyCommitments, BitChallengeMsg>> receive_bit_commitments(
      std::vector<BitCommitment> commitments) &&;

  const SessionParams& params() const;
  BP_MPC_TYPE_STATE(DealerAwaitingBitCommitments, detail::DealerState);
  friend struct detail::DealerFactory;
};

class DealerAwaitingPolyCommitments {
 public:
  MpcResult<std::pair<DealerAwaitingProofShares, PolyChallengeMsg>> receive_poly_commitments(
      std::vector<PolyCommitment> commitments) &&;

  BP_MPC_TYPE_STATE(DealerAwaitingPolyCommitments, detail::DealerState);
  friend class DealerAwaitingBitCommitments;
};

class DealerAwaitingProofShares {
 public:
  // assemble_shares, then check.
  MpcResult<AggregationResult> receive_shares(std::vector<ProofShare> shares) &&;
  // Validates the shares' shape (their number, n entries each) and assembles the proof.
  MpcResult<DealerCheckingProof> assemble_shares(std::vector<ProofShare> shares) &&;

  BP_MPC_TYPE_STATE(DealerAwaitingProofShares, detail::DealerState);
  friend class DealerAwaitingPolyCommitments;
};

// An assembled proof that has not been verified yet: it gives out nothing but its check.
class DealerCheckingProof {
 public:
  // Verifies the proof; when it fails, audits every share against its own party's
  // commitments and names the bad ones (MalformedProofShares).
  MpcResult<AggregationResult> check() &&;
  // The same for several dealers' proofs (other sessions, any n and m) in one batch
  // verification; a batch that fails is bisected (core/batch_verification.hpp), so each
  // answer is what that dealer's own check() would give. Answers in the dealers' order.
  static std::vector<MpcResult<AggregationResult>> check_batch(std::vector<DealerCheckingProof> dealers);

  BP_MPC_MOVE_ONLY(DealerCheckingProof);

 private:
  friend class DealerAwaitingProofShares;
  struct Assembled;
  explicit DealerCheckingProof(std::unique_ptr<Assembled> a);
  // The result once the proof has verified, the blame once it has failed (ConsumedState
  // when moved from).
  MpcResult<AggregationResult> verdict(bool verified) &&;
  MpcError blame() const;
  std::unique_ptr<Assembled> a_;
};

}  // namespace bp::mpc
