#include "bp/mpc/errors.hpp"
#include "bp/json.hpp"

namespace bp::mpc {

std::string_view name(MpcErrorKind kind) {
  switch (kind) {
    case MpcErrorKind::InvalidParameters: return "InvalidParameters";
    case MpcErrorKind::ValueOutOfRange: return "ValueOutOfRange";
    case MpcErrorKind::InvalidPosition: return "InvalidPosition";
    case MpcErrorKind::WrongNumBitCommitments: return "WrongNumBitCommitments";
    case MpcErrorKind::WrongNumPolyCommitments: return "WrongNumPolyCommitments";
    case MpcErrorKind::WrongNumProofShares: return "WrongNumProofShares";
    case MpcErrorKind::MalformedBitCommitments: return "MalformedBitCommitments";
    case MpcErrorKind::MalformedPolyCommitments: return "MalformedPolyCommitments";
    case MpcErrorKind::MalformedProofShares: return "MalformedProofShares";
    case MpcErrorKind::MaliciousDealer: return "MaliciousDealer";
    case MpcErrorKind::ConsumedState: return "ConsumedState";
    case MpcErrorKind::WrongNumPhaseShares: return "WrongNumPhaseShares";
    case MpcErrorKind::MalformedPhaseShares: return "MalformedPhaseShares";
  }
  return "Unknown";
}

std::string describe(const MpcError& e) {
  std::string out(name(e.kind));
  if (!e.detail.empty()) out += ": " + e.detail;
  return out;
}

std::string describe_with_blame(const MpcError& e) {
  std::string out = describe(e);
  out += " blamed=[";
  out += comma_separated(e.blamed);
  return out + "]";
}

}  // namespace bp::mpc
