// Typed errors of the aggregation protocol. Errors caused by a participant carry the
// positions to blame.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bp/errors.hpp"

namespace bp::mpc {

enum class MpcErrorKind {
  InvalidParameters,       // the bit size, the positions or the generators do not allow this session
  ValueOutOfRange,         // the party's own value is not below 2^bits
  InvalidPosition,         // a position outside [0, m)
  WrongNumBitCommitments,  // the dealer got a different number of messages than positions
  WrongNumPolyCommitments,
  WrongNumProofShares,
  MalformedBitCommitments,  // the blamed positions' messages are undecodable or identity points
  MalformedPolyCommitments,
  MalformedProofShares,  // the blamed positions' shares have the wrong size or fail the audit
  MaliciousDealer,       // a challenge the party cannot reproduce, a zero challenge, or a changed retry
  ConsumedState,         // a moved-from protocol state was used again
  // A gadget session's first or second phase (the detail names which): its own kinds, for
  // messages that are neither bit commitments nor any range round's.
  WrongNumPhaseShares,   // the dealer got a different number of phase messages than seats
  MalformedPhaseShares,  // the blamed seats' phase messages do not decode, or not their gadget's size
};

struct MpcError {
  MpcErrorKind kind;
  std::vector<size_t> blamed;  // positions (a gadget session's: seats), ascending
  std::string detail;

  friend bool operator==(const MpcError&, const MpcError&) = default;
};

std::string_view name(MpcErrorKind kind);
// One line: "<kind>: <detail> blamed=[1,3]".
// The kind and detail; the blamed positions are not in it (they travel in their own field,
// and whoever prints them does so once).
std::string describe(const MpcError& e);
// The same with " blamed=[...]", for output that has no field of its own for them.
std::string describe_with_blame(const MpcError& e);

template <class T>
using MpcResult = bp::Result<T, MpcError>;

}  // namespace bp::mpc
