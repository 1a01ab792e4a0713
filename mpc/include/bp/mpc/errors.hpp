// Typed errors of the aggregation protocol. Errors caused by a participant carry the
// positions to blame.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bp/errors.hpp"

namespace bp::mpc {

enum class MpcErrorKind {
  InvalidParameters,       // n, m or the generators do not allow this session
  ValueOutOfRange,         // the party's own value is not below 2^n
  InvalidPosition,         // a position outside [0, m)
  WrongNumBitCommitments,  // the dealer got a different number of messages than parties
  WrongNumPolyCommitments,
  WrongNumProofShares,
  MalformedBitCommitments,  // blamed parties sent undecodable or identity points
  MalformedPolyCommitments,
  MalformedProofShares,  // blamed parties' shares have the wrong size or fail the audit
  MaliciousDealer,       // a challenge the party cannot reproduce, a zero challenge, or a changed retry
  ConsumedState,         // a moved-from protocol state was used again
};

struct MpcError {
  MpcErrorKind kind;
  std::vector<size_t> blamed;  // party positions, ascending
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
