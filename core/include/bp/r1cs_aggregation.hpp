// Multiparty constraint-system proofs over a block-diagonal gadget list: party j owns item
// j of the list (its gadget over its own commitments) and never shows its values or
// blindings; the dealer adds the parties' commitments up and runs the inner-product
// argument. The result is one R1CSProof of the whole list under the label, which
// verify_gadget_list (and the reference's verifier) accepts as if one prover had made it.
//
// The rounds, each party's share computed over its own multipliers only (a multiplier, a
// constraint and a commitment belong to the item that made them; no gadget reaches across):
//   1. V_j, A_I1_j, A_O1_j, S1_j   (the first phase's wires, blinded)
//   2. A_I2_j, A_O2_j, S2_j         (after the second phase's challenges)
//   3. T_1_j, T_3_j .. T_6_j        (after y and z)
//   4. l_j(x), r_j(x) over its multipliers, t_x_j, t̃_x_j, ẽ_j   (after u and x)
// Every party is given every party's message of the round before, adds them up itself and
// draws each challenge from its own transcript: the dealer cannot steer one. The math of
// each step is docs/r1cs.md's ("Multiparty"); the type-states around it are mpc's.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bp/r1cs.hpp"
#include "bp/r1cs_gadget_list.hpp"

namespace bp {

struct R1CSFirstPhaseShare {
  std::vector<CompressedRistretto> V;  // the party's commitments, in its item's order
  CompressedRistretto A_I1, A_O1, S1;
  friend bool operator==(const R1CSFirstPhaseShare&, const R1CSFirstPhaseShare&) = default;
};
struct R1CSSecondPhaseShare {
  CompressedRistretto A_I2, A_O2, S2;  // the identity for a party without second-phase multipliers
  friend bool operator==(const R1CSSecondPhaseShare&, const R1CSSecondPhaseShare&) = default;
};
struct R1CSPolyShare {
  CompressedRistretto T_1, T_3, T_4, T_5, T_6;
  friend bool operator==(const R1CSPolyShare&, const R1CSPolyShare&) = default;
};
struct R1CSProofShare {
  std::vector<Scalar> l, r;  // over the party's multipliers, in the system's order
  Scalar t_x, t_x_blinding, e_blinding;
};

namespace detail {
class R1CSSliceState;
}

// One party's side: item `item` of `list`, its values and blindings (one per commitment of
// the item). Each step takes every party's message of the previous round, in item order,
// and refuses a set whose entry for this party is not what it sent. Secrets are wiped with
// the object.
class R1CSPartySlice {
 public:
  static Result<R1CSPartySlice, R1CSError> create(const GadgetList& list, size_t item, std::string label,
                                                  std::span<const uint64_t> values, std::span<const Scalar> blindings);
  ~R1CSPartySlice();
  R1CSPartySlice(R1CSPartySlice&&) noexcept;
  R1CSPartySlice& operator=(R1CSPartySlice&&) noexcept;

  const R1CSFirstPhaseShare& first_phase() const;
  Result<R1CSSecondPhaseShare, R1CSError> second_phase(std::span<const R1CSFirstPhaseShare> all);
  Result<R1CSPolyShare, R1CSError> poly(std::span<const R1CSSecondPhaseShare> all);
  Result<R1CSProofShare, R1CSError> share(std::span<const R1CSPolyShare> all);

 private:
  explicit R1CSPartySlice(std::unique_ptr<detail::R1CSSliceState> s);
  std::unique_ptr<detail::R1CSSliceState> s_;
};

// The dealer's side: the proof from every party's four messages (deterministic: the same
// messages give the same bytes), checked before it is returned. When it does not verify,
// each party's shares are checked against its own commitments and the ones that do not fit
// are named (item indices, ascending) with a VerificationError.
struct R1CSAggregate {
  std::vector<CompressedRistretto> commitments;  // every party's, in item order
  R1CSProof proof;
};
struct R1CSBlame {
  R1CSError error;
  std::vector<size_t> blamed;  // items
};
Result<R1CSAggregate, R1CSBlame> aggregate_r1cs(const GadgetList& list, std::string_view label,
                                                std::span<const R1CSFirstPhaseShare> first,
                                                std::span<const R1CSSecondPhaseShare> second,
                                                std::span<const R1CSPolyShare> poly,
                                                std::span<const R1CSProofShare> shares);
// The same in two steps, for a dealer that verifies many sessions' proofs in one batch
// (verify_gadget_lists): the proof the shares add up to, not yet verified; and, once it has
// failed, the items whose shares do not fit their own commitments.
Result<R1CSAggregate, R1CSBlame> assemble_r1cs(const GadgetList& list, std::string_view label,
                                               std::span<const R1CSFirstPhaseShare> first,
                                               std::span<const R1CSSecondPhaseShare> second,
                                               std::span<const R1CSPolyShare> poly,
                                               std::span<const R1CSProofShare> shares);
std::vector<size_t> audit_r1cs_shares(const GadgetList& list, std::string_view label,
                                      std::span<const R1CSFirstPhaseShare> first,
                                      std::span<const R1CSSecondPhaseShare> second, std::span<const R1CSPolyShare> poly,
                                      std::span<const R1CSProofShare> shares);

}  // namespace bp
