// Multiparty constraint-system proofs as type-states (the math: bp/r1cs_aggregation.hpp).
// A session is a gadget list, one item per seat; the party in seat j proves item j over its
// own values. Party:
//
//   R1CSPartyAwaitingSeat --take_seat(list, j, label)--> R1CSPartyAwaitingFirstPhases + R1CSFirstPhaseShare
//   R1CSPartyAwaitingFirstPhases --apply(every first-phase message)--> ...SecondPhases + R1CSSecondPhaseShare
//   R1CSPartyAwaitingSecondPhases --apply(every second-phase message)--> ...Polys + R1CSPolyShare
//   R1CSPartyAwaitingPolys --apply(every poly message)--> R1CSPartyAwaitingResult + R1CSProofShare
//
// Dealer:
//
//   R1CSDealerAwaitingFirstPhases --receive--> ...SecondPhases --receive--> ...Polys --receive-->
//   R1CSDealerAwaitingShares --receive--> R1CSAggregate (checked) or blame
//
// As for ranges, every state is move-only, every transition &&-qualified (a step cannot be
// skipped, repeated or taken from a copy) and a moved-from state answers ConsumedState. The
// party pins its gadget: a seat whose item is another gadget is refused before anything is
// sent, whatever the values are; it recomputes every challenge from the messages, and a
// round that misquotes its own message is MaliciousDealer. Blame names seats (items).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bp/mpc/errors.hpp"
#include "bp/mpc/type_state.hpp"
#include "bp/r1cs_aggregation.hpp"

namespace bp::mpc {

namespace detail {
struct R1CSPartyHold;
struct R1CSDealerHold;
}  // namespace detail

class R1CSPartyAwaitingFirstPhases;
class R1CSPartyAwaitingSecondPhases;
class R1CSPartyAwaitingPolys;
class R1CSPartyAwaitingResult;

class R1CSPartyAwaitingSeat {
 public:
  // The gadget the party states (one item, as a list reads it), its values and blindings
  // (one per commitment of the gadget; the blindings are copied and wiped with the state).
  // Refuses values that do not satisfy the gadget, before anything is sent.
  static MpcResult<R1CSPartyAwaitingSeat> create(const GadgetItem& gadget, std::vector<uint64_t> values,
                                                 std::vector<Scalar> blindings);
  // Seat `item` of the session's list, under the session's transcript label.
  MpcResult<std::pair<R1CSPartyAwaitingFirstPhases, R1CSFirstPhaseShare>> take_seat(const GadgetList& list, size_t item,
                                                                                    std::string label) &&;
  BP_MPC_TYPE_STATE(R1CSPartyAwaitingSeat, detail::R1CSPartyHold);
};

class R1CSPartyAwaitingFirstPhases {
 public:
  MpcResult<std::pair<R1CSPartyAwaitingSecondPhases, R1CSSecondPhaseShare>> apply(
      std::span<const R1CSFirstPhaseShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSPartyAwaitingFirstPhases, detail::R1CSPartyHold);
  friend class R1CSPartyAwaitingSeat;
};

class R1CSPartyAwaitingSecondPhases {
 public:
  MpcResult<std::pair<R1CSPartyAwaitingPolys, R1CSPolyShare>> apply(std::span<const R1CSSecondPhaseShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSPartyAwaitingSecondPhases, detail::R1CSPartyHold);
  friend class R1CSPartyAwaitingFirstPhases;
};

class R1CSPartyAwaitingPolys {
 public:
  MpcResult<std::pair<R1CSPartyAwaitingResult, R1CSProofShare>> apply(std::span<const R1CSPolyShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSPartyAwaitingPolys, detail::R1CSPartyHold);
  friend class R1CSPartyAwaitingSecondPhases;
};

class R1CSPartyAwaitingResult {
 public:
  // The dealer's result is a proof of the session's list under its label, and holds this
  // party's commitments in its seat's place.
  MpcResult<Ok> check_result(std::span<const CompressedRistretto> commitments, const R1CSProof& proof) const;
  BP_MPC_TYPE_STATE(R1CSPartyAwaitingResult, detail::R1CSPartyHold);
  friend class R1CSPartyAwaitingPolys;
};

class R1CSDealerAwaitingSecondPhases;
class R1CSDealerAwaitingPolys;
class R1CSDealerAwaitingShares;

class R1CSDealerAwaitingFirstPhases {
 public:
  static MpcResult<R1CSDealerAwaitingFirstPhases> create(GadgetList list, std::string label);
  // Every seat's message, in seat order; what goes back to every party is the same set.
  MpcResult<R1CSDealerAwaitingSecondPhases> receive(std::vector<R1CSFirstPhaseShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSDealerAwaitingFirstPhases, detail::R1CSDealerHold);
};

class R1CSDealerAwaitingSecondPhases {
 public:
  MpcResult<R1CSDealerAwaitingPolys> receive(std::vector<R1CSSecondPhaseShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSDealerAwaitingSecondPhases, detail::R1CSDealerHold);
  friend class R1CSDealerAwaitingFirstPhases;
};

class R1CSDealerAwaitingPolys {
 public:
  MpcResult<R1CSDealerAwaitingShares> receive(std::vector<R1CSPolyShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSDealerAwaitingPolys, detail::R1CSDealerHold);
  friend class R1CSDealerAwaitingSecondPhases;
};

class R1CSDealerCheckingProof;

class R1CSDealerAwaitingShares {
 public:
  // The proof, checked; or the seats whose messages do not fit their own commitments.
  MpcResult<R1CSAggregate> receive(std::vector<R1CSProofShare> all) &&;
  // The same in two steps: the proof the shares add up to, to be checked alone or with
  // other sessions' proofs in one batch (a seat whose share is not its gadget's size is
  // named here, before any check).
  MpcResult<R1CSDealerCheckingProof> assemble(std::vector<R1CSProofShare> all) &&;
  BP_MPC_TYPE_STATE(R1CSDealerAwaitingShares, detail::R1CSDealerHold);
  friend class R1CSDealerAwaitingPolys;
};

class R1CSDealerCheckingProof {
 public:
  // Verifies the proof; when it fails, audits every seat's shares against its own
  // commitments and names the ones that do not fit (MalformedProofShares).
  MpcResult<R1CSAggregate> check() &&;
  // Several sessions' proofs (any lists) in one batch verification (verify_gadget_lists);
  // each answer is what that dealer's own check() would give, in the dealers' order.
  static std::vector<MpcResult<R1CSAggregate>> check_batch(std::vector<R1CSDealerCheckingProof> dealers);
  // The generators its check reads (the list's padded multipliers): what it weighs in a batch.
  size_t generators() const;
  BP_MPC_TYPE_STATE(R1CSDealerCheckingProof, detail::R1CSDealerHold);
  friend class R1CSDealerAwaitingShares;
};

}  // namespace bp::mpc
