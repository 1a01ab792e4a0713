// Shared set-up for the compile-fail cases: each case file defines exactly one misuse
// between BEGIN and END; the control case is the same code used correctly.
#pragma once

#include <utility>

#include "bp/mpc/dealer.hpp"
#include "bp/mpc/party.hpp"
#include "bp/mpc/r1cs.hpp"

inline bp::mpc::PartyAwaitingPosition make_party() {
  static const bp::BulletproofGens gens(8, 1);
  static const bp::PedersenGens pc;
  return std::move(*bp::mpc::PartyAwaitingPosition::create(gens, pc, {8, 1, "compile"}, 1, bp::Scalar::one()));
}

inline bp::mpc::DealerAwaitingBitCommitments make_dealer() {
  static const bp::BulletproofGens gens(8, 1);
  static const bp::PedersenGens pc;
  return std::move(*bp::mpc::DealerAwaitingBitCommitments::create(gens, pc, {8, 1, "compile"}));
}

inline bp::mpc::R1CSPartyAwaitingSeat make_r1cs_party() {
  return std::move(
      *bp::mpc::R1CSPartyAwaitingSeat::create(bp::GadgetList::parse("range:8")->items()[0], {1}, {bp::Scalar::one()}));
}

inline bp::mpc::R1CSDealerAwaitingFirstPhases make_r1cs_dealer() {
  return std::move(*bp::mpc::R1CSDealerAwaitingFirstPhases::create(*bp::GadgetList::parse("range:8"), "compile"));
}
