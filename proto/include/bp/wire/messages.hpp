// The wire protocol's vocabulary beside mpc's round messages: the control plane (Hello,
// sessions created, joined, listed and managed, aborts) and the signed result, as the codec
// (bp/wire/codec.hpp) turns them into protobuf Envelopes and back. See proto/aggregation.proto
// for the meaning of each field and docs/wire-format.md for the versions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bp/bounds.hpp"
#include "bp/mpc/limits.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/r1cs_aggregation.hpp"
#include "bp/wire/identity.hpp"

namespace bp::wire {

// 1.6: what kind of refusal an Abort is (None: not a refusal of the request, or an older dealer).
enum class RefusalKind { None, NotAllowed, NoSuchSession, OverLimit };

struct AbortMsg {
  std::string reason;
  std::vector<size_t> blamed;
  // 1.3: nonzero means the session goes on: join again with the resume token after this long.
  uint32_t reconnect_after_ms = 0;
  RefusalKind refusal = RefusalKind::None;
  // 1.7: the session of the parties not blamed that goes on in this one's place; empty: none.
  std::string successor{};
  friend bool operator==(const AbortMsg&, const AbortMsg&) = default;
};
// The most a dealer asks a party to wait before it joins again (a larger value is refused).
inline constexpr uint32_t kMaxReconnectAfterMs = 60000;

// A public key and its signature over one of the statements in bp/wire/auth.hpp.
struct KeySignature {
  PublicKey key{};
  Signature signature{};
  friend bool operator==(const KeySignature&, const KeySignature&) = default;
};

// Session set-up (see proto/aggregation.proto for the meaning of each field).
// The minor version of the wire format this build speaks (docs/wire-format.md).
inline constexpr uint32_t kWireMinorVersion = 7;

struct HelloMsg {
  std::array<uint8_t, 32> nonce{};
  PublicKey dealer_key{};
  bool anonymous_allowed = false;
  bool tls_channel_binding = false;  // signatures must cover the TLS exporter value
  uint32_t minor_version = 0;        // 1.3: the dealer's; 0 from an older dealer
  friend bool operator==(const HelloMsg&, const HelloMsg&) = default;
};
struct CreateSessionMsg {
  size_t bits = 64;
  size_t parties = 1;
  std::string label;
  uint32_t round_timeout_ms = 0;
  std::vector<PublicKey> allowed_parties;     // empty, or one per party in seat order
  std::optional<KeySignature> operator_auth;  // absent: an anonymous request
  std::string session_id;                     // proposed by the operator; empty: the dealer picks
  std::vector<uint32_t> values_per_party{};   // 1.4: one count per party; empty: one value each
  std::vector<ValueBounds> bounds{};          // 1.4: one per value; empty: [0, 2^bits)
  std::string gadgets{};                      // 1.5: a gadget session's list (bits 0); empty: ranges
  uint32_t min_parties = 0;                   // 1.7: a quorum, 1..parties; 0: every party
  uint32_t join_window_ms = 0;                // 1.7: a quorum session's join window; 0: round_timeout_ms
  bool gadget_successors = false;             // 1.7: a gadget quorum session may go on without its culprits
  friend bool operator==(const CreateSessionMsg&, const CreateSessionMsg&) = default;
};
struct SessionCreatedMsg {
  std::string session_id;
  std::string transcript_label;
  friend bool operator==(const SessionCreatedMsg&, const SessionCreatedMsg&) = default;
};
struct JoinSessionMsg {
  std::string session_id;
  std::vector<uint8_t> resume_token;       // empty or 16 bytes
  std::optional<KeySignature> party_auth;  // absent: an anonymous join
  std::vector<uint8_t> seat_token{};       // 1.3: empty or 16 bytes the party picked for a new seat
  uint32_t values = 0;                     // 1.4: the values it brings; 0 (older party): one, unbounded
  std::string gadget{};                    // 1.5: the gadget it proves (one list item); empty: ranges
  friend bool operator==(const JoinSessionMsg&, const JoinSessionMsg&) = default;
};
struct JoinedMsg {
  size_t position = 0;
  size_t bits = 64;
  size_t session_positions = 1;  // every position of the session (the proof's m before padding)
  std::string transcript_label;
  std::vector<uint8_t> resume_token;
  size_t positions = 1;               // 1.4: the seat's positions from `position` on
  std::vector<ValueBounds> bounds{};  // 1.4: the bounds of the seat's values (empty: none)
  std::string gadgets{};              // 1.5: a gadget session's list (bits 0; the seat is `position`)
  size_t session_parties = 0;         // 1.7: the session's parties (0: an older dealer's, unknown)
  friend bool operator==(const JoinedMsg&, const JoinedMsg&) = default;
};

// An operator's request to see (and cancel some of) its open sessions, and the answer.
inline constexpr size_t kMaxManagedIds = 64;
struct ManageSessionsMsg {
  std::vector<std::string> cancel;
  std::optional<KeySignature> operator_auth;  // absent: anonymous
  friend bool operator==(const ManageSessionsMsg&, const ManageSessionsMsg&) = default;
};
inline constexpr size_t kMaxReplicaNameBytes = 128;
struct SessionSummary {
  std::string session_id;
  size_t bits = 0, parties = 0, joined = 0;  // parties: seats; joined: seats taken
  std::string phase;
  std::string replica;  // 1.2: the dealer replica running it (empty from a 1.1 dealer)
  friend bool operator==(const SessionSummary&, const SessionSummary&) = default;
};
inline constexpr size_t kMaxListedSessions = 1000;  // an operator holds fewer (the dealer's per-operator cap)
struct SessionListMsg {
  std::vector<SessionSummary> sessions;
  std::vector<std::string> not_cancelled;
  friend bool operator==(const SessionListMsg&, const SessionListMsg&) = default;
};

// The dealer's signature over a result (bp/wire/auth.hpp's result statement).
struct Attestation {
  std::string session_id;
  PublicKey dealer_key{};
  Signature signature{};
  friend bool operator==(const Attestation&, const Attestation&) = default;
};
struct ResultMsg {
  mpc::AggregationResult result;
  std::optional<Attestation> attestation;  // absent for a result made in process
  // 1.4: a bounded session's bounds, one per value; the result's commitments are then the
  // positions' and its label ends with them (bounded_label).
  std::vector<ValueBounds> bounds{};
};

// 1.4: a party's messages of one round for all its positions, in position order.
struct BitCommitments {
  std::vector<BitCommitment> items;
  friend bool operator==(const BitCommitments&, const BitCommitments&) = default;
};
struct PolyCommitments {
  std::vector<PolyCommitment> items;
  friend bool operator==(const PolyCommitments&, const PolyCommitments&) = default;
};
struct ProofShares {
  std::vector<ProofShare> items;
  friend bool operator==(const ProofShares&, const ProofShares&) = default;
};
// Does the attestation cover this result? (false when there is none)
bool attestation_valid(const ResultMsg& message);

// 1.5: a gadget session's rounds. A party sends its seat's R1CSFirstPhaseShare,
// R1CSSecondPhaseShare, R1CSPolyShare and R1CSProofShare (bp/r1cs_aggregation.hpp); the
// dealer answers each of the first three with every seat's, in seat order.
struct R1CSFirstPhases {
  std::vector<R1CSFirstPhaseShare> items;
};
struct R1CSSecondPhases {
  std::vector<R1CSSecondPhaseShare> items;
};
struct R1CSPolyShares {
  std::vector<R1CSPolyShare> items;
};
// The aggregated proof of a gadget session: one R1CS proof of `gadgets` under `label`.
struct R1CSResultMsg {
  std::string gadgets;  // canonical (GadgetList::text)
  std::string label;
  std::vector<CompressedRistretto> commitments;  // every seat's, seat order
  R1CSProof proof;
  std::optional<Attestation> attestation;
};
bool attestation_valid(const R1CSResultMsg& message);
// The longest gadget list a session takes (a member item's set makes a list long).
inline constexpr size_t kMaxGadgetsBytes = mpc::kMaxGadgetListBytes;

using Message =
    std::variant<BitCommitment, mpc::BitChallengeMsg, PolyCommitment, mpc::PolyChallengeMsg, ProofShare, ResultMsg,
                 AbortMsg, CreateSessionMsg, SessionCreatedMsg, JoinSessionMsg, JoinedMsg, HelloMsg, ManageSessionsMsg,
                 SessionListMsg, BitCommitments, PolyCommitments, ProofShares, R1CSFirstPhaseShare, R1CSFirstPhases,
                 R1CSSecondPhaseShare, R1CSSecondPhases, R1CSPolyShare, R1CSPolyShares, R1CSProofShare, R1CSResultMsg>;

// The most positions a session may hold (a dealer may cap it lower, --max-positions).
inline constexpr size_t kMaxPositions = mpc::kMaxPositions;

inline constexpr size_t kSessionIdChars = 32;
bool valid_session_id(std::string_view id);  // 32 lowercase hex characters
std::string random_session_id();             // 128 bits from libsodium, as valid_session_id wants
// The WebSocket path that names a session, so a load balancer can route by it.
std::string session_path(std::string_view id);
// The session a request target names (".../v1/session/ID"), if it names a valid one.
std::optional<std::string> session_id_in_path(std::string_view target);
inline constexpr size_t kResumeTokenBytes = 16;

}  // namespace bp::wire
