// The codec between protobuf Envelopes and the protocol's messages. Decoding validates every
// field before anything reaches mpc/: lengths, canonical point and scalar encodings, vector
// sizes, the protocol version. It never throws and never trusts a length it has not checked.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "bp/errors.hpp"
#include "bp/mpc/messages.hpp"

namespace bp::wire {

inline constexpr uint32_t kWireVersion = 1;

enum class CodecErrorKind {
  FrameTooLarge,       // over the configured limit, refused before parsing
  Unparseable,         // not a protobuf Envelope
  UnsupportedVersion,  // a version this build does not speak
  MissingBody,         // an Envelope with no message in it
  BadLength,           // a point, scalar or vector of the wrong size
  NonCanonical,        // a scalar >= l, or a point encoding that does not decode
  TooMany,             // more elements than the protocol allows
};

struct CodecError {
  CodecErrorKind kind;
  std::string detail;
};

std::string describe(const CodecError& e);

struct AbortMsg {
  std::string reason;
  std::vector<size_t> blamed;
  friend bool operator==(const AbortMsg&, const AbortMsg&) = default;
};

// Session set-up (see proto/aggregation.proto for the meaning of each field).
struct CreateSessionMsg {
  size_t n = 64;
  size_t parties = 1;
  std::string label;
  uint32_t round_timeout_ms = 0;
  friend bool operator==(const CreateSessionMsg&, const CreateSessionMsg&) = default;
};
struct SessionCreatedMsg {
  std::string session_id;
  std::string transcript_label;
  friend bool operator==(const SessionCreatedMsg&, const SessionCreatedMsg&) = default;
};
struct JoinSessionMsg {
  std::string session_id;
  std::vector<uint8_t> resume_token;  // empty or 16 bytes
  friend bool operator==(const JoinSessionMsg&, const JoinSessionMsg&) = default;
};
struct JoinedMsg {
  size_t position = 0;
  size_t n = 64;
  size_t parties = 1;
  std::string transcript_label;
  std::vector<uint8_t> resume_token;
  friend bool operator==(const JoinedMsg&, const JoinedMsg&) = default;
};

using Message = std::variant<BitCommitment, mpc::BitChallengeMsg, PolyCommitment, mpc::PolyChallengeMsg, ProofShare,
                             mpc::AggregationResult, AbortMsg, CreateSessionMsg, SessionCreatedMsg, JoinSessionMsg,
                             JoinedMsg>;

inline constexpr size_t kSessionIdChars = 32;
inline constexpr size_t kResumeTokenBytes = 16;

struct Limits {
  size_t max_frame_bytes = 64 * 1024;  // the largest honest frame (a 64-party challenge) is under 7 KiB
  size_t max_parties = 64;
  size_t max_bits = 64;
  size_t max_label_bytes = 1024;
};

std::vector<uint8_t> encode(const Message& message);
Result<Message, CodecError> decode(std::span<const uint8_t> frame, const Limits& limits = {});

}  // namespace bp::wire
