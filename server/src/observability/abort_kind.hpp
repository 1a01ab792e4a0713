// Why a session ended without a result, as one of a fixed set of kinds: the label of
// bp_sessions_aborted_total{reason=...} (a bounded set, so alerts and dashboards can name
// them). The free-text reason goes to the parties, the record and the log; the culprits'
// positions travel beside it, never inside it.
#pragma once

#include <array>

namespace bp::server {

enum class AbortKind {
  JoinTimeout,        // not every seat was taken before the deadline
  QuorumNotReached,   // a quorum session's join window ended with fewer parties than its minimum
  RoundTimeout,       // a seated party did not answer a round in time
  PartyLeft,          // a party disconnected and did not resume within the grace period
  ProtocolViolation,  // a malformed, oversized, out-of-order or conflicting frame
  Withdrawn,          // a party refused its seat before committing (its terms were not the party's statement)
  LostState,          // a party that had committed came back without its state (restarted): it cannot go on
  InvalidShares,      // a commitment or share failed the dealer's audit
  Cancelled,          // its operator cancelled it
  Shutdown,           // the dealer stopped before it ended
  Internal,           // the session could not be set up
};

inline constexpr std::array kAllAbortKinds = {
    AbortKind::JoinTimeout, AbortKind::RoundTimeout, AbortKind::PartyLeft,       AbortKind::ProtocolViolation,
    AbortKind::Withdrawn,   AbortKind::LostState,    AbortKind::InvalidShares,   AbortKind::Cancelled,
    AbortKind::Shutdown,    AbortKind::Internal,     AbortKind::QuorumNotReached};

constexpr const char* abort_kind_label(AbortKind kind) {
  switch (kind) {
    case AbortKind::JoinTimeout: return "join_timeout";
    case AbortKind::QuorumNotReached: return "quorum_not_reached";
    case AbortKind::RoundTimeout: return "round_timeout";
    case AbortKind::PartyLeft: return "party_left";
    case AbortKind::ProtocolViolation: return "protocol_violation";
    case AbortKind::Withdrawn: return "withdrawn";
    case AbortKind::LostState: return "lost_state";
    case AbortKind::InvalidShares: return "invalid_shares";
    case AbortKind::Cancelled: return "cancelled";
    case AbortKind::Shutdown: return "shutdown";
    case AbortKind::Internal: return "internal";
  }
  return "internal";
}

}  // namespace bp::server
