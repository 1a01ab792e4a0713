// The dealer's checkpoint of a running session (proto/checkpoint.proto): what the record
// holds so that a replica can rebuild the dealer after a takeover. Decoding checks every
// field as strictly as a frame from the network: the record is outside this process.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bp/errors.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/r1cs_aggregation.hpp"
#include "bp/wire/codec.hpp"
#include "bp/wire/identity.hpp"

namespace bp::wire {

inline constexpr size_t kTokenHashBytes = 32;
using TokenHash = std::array<uint8_t, kTokenHashBytes>;
// What a seat keeps of its resume token: BLAKE2b-256 of it.
TokenHash hash_resume_token(std::span<const uint8_t> token);

struct SeatCheckpoint {
  bool taken = false;
  TokenHash token_hash{};
  std::string peer;
  friend bool operator==(const SeatCheckpoint&, const SeatCheckpoint&) = default;
};

struct DealerCheckpoint {
  size_t bits = 64;
  size_t positions = 1;
  std::string transcript_label;
  uint32_t round_timeout_ms = 0;
  std::vector<PublicKey> allowed_parties;  // empty, or one per party (seat order)
  std::optional<PublicKey> owner_key;
  std::string owner_address;
  std::array<uint8_t, 32> padding_seed{};
  std::vector<SeatCheckpoint> seats;             // one per party
  std::vector<uint32_t> values_per_party;        // 1.4: one per party; empty: one value each
  std::vector<ValueBounds> bounds;               // 1.4: one per value; empty: none
  std::vector<BitCommitment> bit_commitments;    // empty, or one per position: round 1 decided
  std::vector<PolyCommitment> poly_commitments;  // empty, or one per position: round 2 decided
  // 1.5: a gadget session (bits 0, one position per seat): its list, and each decided round's
  // messages, one per seat (empty: not decided).
  std::string gadgets;
  std::vector<R1CSFirstPhaseShare> r1cs_first_phases;
  std::vector<R1CSSecondPhaseShare> r1cs_second_phases;
  std::vector<R1CSPolyShare> r1cs_poly_commitments;
  // 1.7: a quorum (0: every party) and its join window; once the set is fixed, how many were
  // listed and which listed seats (with their keys, when keyed) were left out.
  uint32_t min_parties = 0;
  uint32_t join_window_ms = 0;
  uint32_t listed_parties = 0;
  std::vector<uint32_t> not_joined;
  std::vector<PublicKey> not_joined_keys;
  bool gadget_successors = false;
  friend bool operator==(const DealerCheckpoint&, const DealerCheckpoint&) = default;
};

std::vector<uint8_t> encode_checkpoint(const DealerCheckpoint& checkpoint);
Result<DealerCheckpoint, CodecError> decode_checkpoint(std::span<const uint8_t> bytes, const Limits& limits = {});

}  // namespace bp::wire
