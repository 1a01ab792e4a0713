// The codec between protobuf Envelopes and the protocol's messages (bp/wire/messages.hpp). Decoding validates every
// field before anything reaches mpc/: lengths, canonical point and scalar encodings, vector
// sizes, the protocol version. It never throws and never trusts a length it has not checked.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "bp/errors.hpp"
#include "bp/wire/messages.hpp"

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

// The longest transcript label any decoder takes (Joined, SessionCreated, the result, a
// checkpoint); the dealer refuses at create a session whose label would not fit.
inline constexpr size_t kMaxTranscriptLabelBytes = mpc::kMaxTranscriptLabelBytes;

struct Limits {
  // The largest honest frame of one position's party is a 256-position challenge, 27 KiB; a
  // party with k positions sends k proof shares of 4.2 KiB in one (the dealer allows it).
  size_t max_frame_bytes = 64 * 1024;
  size_t max_positions = kMaxPositions;  // positions in a session (and so parties, and values)
  size_t max_bits = 64;
  size_t max_label_bytes = mpc::kMaxApplicationLabelBytes;  // an application's label, an abort's reason
  size_t max_transcript_label_bytes = kMaxTranscriptLabelBytes;
  // 1.5, gadget sessions: the value commitments of one session (so of any frame: a broadcast
  // of every seat's first phase fits 64 KiB), and one seat's multipliers (its l and r).
  size_t max_r1cs_commitments = mpc::kMaxSessionCommitments;
  size_t max_r1cs_multipliers = mpc::kMaxSeatMultipliers;
};

std::vector<uint8_t> encode(const Message& message);
Result<Message, CodecError> decode(std::span<const uint8_t> frame, const Limits& limits = {});

}  // namespace bp::wire
