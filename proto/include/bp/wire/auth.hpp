// What each side signs. Every statement starts with its own domain tag and encodes each
// field with a 4-byte little-endian length, so no statement can be read as another or as a
// different split of the same bytes.
//
//   join   = "bp-agg/v1 join"   dealer_key nonce channel_binding session_id resume_token party_key
//   create = "bp-agg/v1 create" dealer_key nonce channel_binding session_id n parties label round_timeout_ms
//                               allowed_parties... operator_key
//   manage = "bp-agg/v1 manage" dealer_key nonce channel_binding cancel_ids... operator_key
//   result = "bp-agg/v1 result" dealer_key session_id n label commitments... proof
//   r1cs result = "bp-agg/v1 r1cs-result" dealer_key session_id gadgets label commitments... proof
//
// The nonce is the dealer's Hello nonce of this connection and the channel binding the TLS
// exporter value of this connection (empty over plain ws://): a captured join or create is
// worthless on any other connection. The result statement names no connection: it is meant
// to be shown to third parties later (`bp verify --dealer-key`).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bp/mpc/messages.hpp"
#include "bp/wire/identity.hpp"

namespace bp::wire {

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kChannelBindingBytes = 32;
// RFC 5705 / RFC 8446 exporter label both ends use for the channel binding.
inline constexpr const char* kTlsExporterLabel = "EXPORTER-bp-agg-v1";

// What one connection's signatures are bound to.
struct ChannelContext {
  std::array<uint8_t, kNonceBytes> nonce{};
  PublicKey dealer_key{};
  std::vector<uint8_t> channel_binding;  // empty over plain TCP
  uint32_t dealer_minor_version = 0;     // what the dealer's Hello said it speaks (not signed)
};

struct CreateSessionMsg;
struct JoinSessionMsg;
struct ManageSessionsMsg;
struct R1CSResultMsg;

std::vector<uint8_t> join_statement(const ChannelContext& channel, const JoinSessionMsg& join,
                                    const PublicKey& party_key);
std::vector<uint8_t> create_statement(const ChannelContext& channel, const CreateSessionMsg& create,
                                      const PublicKey& operator_key);
std::vector<uint8_t> manage_statement(const ChannelContext& channel, const ManageSessionsMsg& manage,
                                      const PublicKey& operator_key);
std::vector<uint8_t> result_statement(const PublicKey& dealer_key, const std::string& session_id,
                                      const mpc::AggregationResult& result);

// 1.5: a gadget session's result (R1CSResultMsg's gadgets, label, commitments and proof).
std::vector<uint8_t> r1cs_result_statement(const PublicKey& dealer_key, const std::string& session_id,
                                           const R1CSResultMsg& result);

}  // namespace bp::wire
