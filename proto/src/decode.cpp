// Decoding: every field from the network is checked before anything reaches mpc/ (length,
// canonical point and scalar encodings, counts against the limits, the version), one
// function per message.
#include <sodium.h>

#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"
#include "field_codec.hpp"

namespace bp::wire {
namespace {

using namespace detail;

template <class T>
Result<Message, CodecError> as_message(Result<T, CodecError> decoded) {
  if (!decoded) return decoded.error();
  return Message{std::move(*decoded)};
}

Result<Message, CodecError> decode_message(const pb::BitChallenge& m, const Limits& limits) {
  if (static_cast<size_t>(m.commitments_size()) > limits.max_positions)
    return error(CodecErrorKind::TooMany, "bit challenge lists too many commitments");
  mpc::BitChallengeMsg out;
  BP_TRY(y, scalar(m.y(), "y"));
  BP_TRY(z, scalar(m.z(), "z"));
  out.y = y;
  out.z = z;
  for (const auto& c : m.commitments()) {
    BP_TRY(d, bit_commitment(c));
    out.bit_commitments.push_back(d);
  }
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::PolyChallenge& m, const Limits& limits) {
  if (static_cast<size_t>(m.commitments_size()) > limits.max_positions)
    return error(CodecErrorKind::TooMany, "poly challenge lists too many commitments");
  mpc::PolyChallengeMsg out;
  BP_TRY(x, scalar(m.x(), "x"));
  out.x = x;
  for (const auto& c : m.commitments()) {
    BP_TRY(d, poly_commitment(c));
    out.poly_commitments.push_back(d);
  }
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::ProofShare& m, const Limits& limits) {
  return as_message(proof_share(m, limits.max_bits));
}

// 1.4: one party's messages of a round, one per position it holds (at least one).
template <class Out, class Repeated, class DecodeItem>
Result<Message, CodecError> decode_items(const Repeated& m, const Limits& limits, const char* what,
                                         DecodeItem decode_item) {
  if (m.items_size() == 0 || static_cast<size_t>(m.items_size()) > limits.max_positions)
    return error(CodecErrorKind::TooMany,
                 std::string(what) + " for 1 to " + std::to_string(limits.max_positions) + " positions");
  Out out;
  for (const auto& c : m.items()) {
    BP_TRY(d, decode_item(c));
    out.items.push_back(std::move(d));
  }
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::BitCommitments& m, const Limits& limits) {
  return decode_items<BitCommitments>(m, limits, "bit commitments", [](const auto& c) { return bit_commitment(c); });
}

Result<Message, CodecError> decode_message(const pb::PolyCommitments& m, const Limits& limits) {
  return decode_items<PolyCommitments>(m, limits, "poly commitments", [](const auto& c) { return poly_commitment(c); });
}

Result<Message, CodecError> decode_message(const pb::ProofShares& m, const Limits& limits) {
  return decode_items<ProofShares>(m, limits, "proof shares",
                                   [&](const auto& c) { return proof_share(c, limits.max_bits); });
}

Result<Message, CodecError> decode_message(const pb::AggregationResult& m, const Limits& limits) {
  if (!is_valid_bitsize(m.bits())) return error(CodecErrorKind::BadLength, "bits is not 8, 16, 32 or 64");
  if (m.label().size() > limits.max_transcript_label_bytes) return error(CodecErrorKind::TooMany, "label too long");
  const size_t count = static_cast<size_t>(m.commitments_size());
  if (count == 0 || count > limits.max_positions || !is_power_of_two(count))
    return error(CodecErrorKind::TooMany, "the commitments are not a power of two up to the party limit");
  if (static_cast<size_t>(m.padding_positions_size()) >= count)
    return error(CodecErrorKind::TooMany, "more padding positions than commitments");
  mpc::AggregationResult out;
  out.bits = m.bits();
  out.label = m.label();
  for (const auto& c : m.commitments()) {
    BP_TRY(p, point(c, "commitment"));
    out.commitments.push_back(p);
  }
  for (uint32_t j : m.padding_positions()) {
    if (j >= count) return error(CodecErrorKind::BadLength, "a padding position outside the session");
    out.padding_positions.push_back(j);
  }
  if (m.proof().size() != RangeProof::serialized_size(out.bits, count))
    return error(CodecErrorKind::BadLength, "the proof has the wrong length for n and m");
  auto proof = RangeProof::from_bytes(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.proof().data()), m.proof().size()));
  if (!proof) return error(CodecErrorKind::NonCanonical, "the proof does not parse");
  out.proof = std::move(*proof);
  BP_TRY(bounds, value_bounds(m.bounds(), count));
  ResultMsg message{std::move(out), std::nullopt, std::move(bounds)};
  if (!message.bounds.empty() && padded_positions(message.bounds) != count)
    return error(CodecErrorKind::BadLength, "the bounds do not take the result's positions");
  if (!m.session_id().empty() || !m.dealer_key().empty() || !m.dealer_signature().empty()) {
    if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
    BP_TRY(key, fixed<kPublicKeyBytes>(m.dealer_key(), "dealer key"));
    BP_TRY(sig, fixed<kSignatureBytes>(m.dealer_signature(), "dealer signature"));
    message.attestation = Attestation{m.session_id(), key, sig};
  }
  return Message{std::move(message)};
}

Result<Message, CodecError> decode_message(const pb::Abort& m, const Limits& limits) {
  if (m.reason().size() > limits.max_label_bytes) return error(CodecErrorKind::TooMany, "abort reason too long");
  if (static_cast<size_t>(m.blamed_size()) > limits.max_positions)
    return error(CodecErrorKind::TooMany, "too many blamed positions");
  if (m.reconnect_after_ms() > kMaxReconnectAfterMs)
    return error(CodecErrorKind::BadLength, "reconnect_after_ms over " + std::to_string(kMaxReconnectAfterMs));
  if (m.reconnect_after_ms() != 0 && m.blamed_size() != 0)
    return error(CodecErrorKind::BadLength, "an abort that asks to reconnect blames nobody");
  // A kind this decoder does not know (a newer dealer's) reads as no kind: the reason still says.
  const int refusal = m.refusal();
  const auto kind = refusal >= 0 && refusal <= static_cast<int>(RefusalKind::OverLimit)
                        ? static_cast<RefusalKind>(refusal)
                        : RefusalKind::None;
  AbortMsg out{m.reason(), {}, m.reconnect_after_ms(), kind};
  for (uint32_t j : m.blamed()) {
    if (j >= limits.max_positions) return error(CodecErrorKind::BadLength, "a blamed position outside any session");
    out.blamed.push_back(j);
  }
  if (!m.successor().empty() && (!valid_session_id(m.successor()) || m.blamed_size() == 0))
    return error(CodecErrorKind::BadLength, "a successor is a session id, after an abort that blames someone");
  out.successor = m.successor();
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::CreateSession& m, const Limits& limits) {
  const bool gadgets = !m.gadgets().empty();
  if (m.gadgets().size() > kMaxGadgetsBytes)
    return error(CodecErrorKind::TooMany, "a gadget list of more than " + std::to_string(kMaxGadgetsBytes) + " bytes");
  if (gadgets && (m.bits() != 0 || m.values_per_party_size() != 0 || m.bounds_size() != 0))
    return error(CodecErrorKind::BadLength, "a gadget session states no bits, values per party or bounds");
  if (!gadgets && !is_valid_bitsize(m.bits())) return error(CodecErrorKind::BadLength, "bits is not 8, 16, 32 or 64");
  if (m.parties() == 0 || m.parties() > limits.max_positions)
    return error(CodecErrorKind::TooMany, "parties must be 1.." + std::to_string(limits.max_positions));
  if (m.label().size() > limits.max_label_bytes) return error(CodecErrorKind::TooMany, "label too long");
  if (m.allowed_parties_size() != 0 && static_cast<uint32_t>(m.allowed_parties_size()) != m.parties())
    return error(CodecErrorKind::BadLength, "the allow-list names one key per party or none");
  CreateSessionMsg out{m.bits(), m.parties(), m.label(), m.round_timeout_ms(), {}, {}, {}};
  for (const auto& k : m.allowed_parties()) {
    BP_TRY(key, fixed<kPublicKeyBytes>(k, "allowed party key"));
    out.allowed_parties.push_back(key);
  }
  BP_TRY(auth, key_signature(m.operator_key(), m.signature(), "operator key"));
  out.operator_auth = auth;
  if (!m.session_id().empty() && !valid_session_id(m.session_id()))
    return error(CodecErrorKind::BadLength, "malformed proposed session id");
  out.session_id = m.session_id();
  if (m.values_per_party_size() != 0 && static_cast<uint32_t>(m.values_per_party_size()) != m.parties())
    return error(CodecErrorKind::BadLength, "values_per_party names one count per party or none");
  size_t values = m.values_per_party_size() == 0 ? m.parties() : 0;
  for (uint32_t k : m.values_per_party()) {
    if (k == 0 || k > limits.max_positions) return error(CodecErrorKind::BadLength, "a party brings 1 to 256 values");
    values += k;
    out.values_per_party.push_back(k);
  }
  if (values > limits.max_positions) return error(CodecErrorKind::TooMany, "more values than positions allowed");
  BP_TRY(bounds, value_bounds(m.bounds(), values));
  if (!bounds.empty() && bounds.size() != values)
    return error(CodecErrorKind::BadLength, "the bounds name one per value or none");
  out.bounds = std::move(bounds);
  out.gadgets = m.gadgets();
  if (m.min_parties() > m.parties())
    return error(CodecErrorKind::BadLength, "min_parties is more than the session's parties");
  out.min_parties = m.min_parties();
  out.join_window_ms = m.join_window_ms();
  if (m.gadget_successors() && (!gadgets || m.min_parties() == 0))
    return error(CodecErrorKind::BadLength, "gadget successors are for a gadget session with a quorum");
  out.gadget_successors = m.gadget_successors();
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::SessionCreated& m, const Limits& limits) {
  if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
  if (m.transcript_label().size() > limits.max_transcript_label_bytes)
    return error(CodecErrorKind::TooMany, "label too long");
  return Message{SessionCreatedMsg{m.session_id(), m.transcript_label()}};
}

Result<Message, CodecError> decode_message(const pb::JoinSession& m, const Limits&) {
  if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
  if (!m.resume_token().empty() && m.resume_token().size() != kResumeTokenBytes)
    return error(CodecErrorKind::BadLength, "a resume token is 16 bytes");
  if (!m.seat_token().empty() && m.seat_token().size() != kResumeTokenBytes)
    return error(CodecErrorKind::BadLength, "a seat token is 16 bytes");
  if (m.values() > kMaxPositions) return error(CodecErrorKind::TooMany, "more values than a session holds");
  if (m.gadget().size() > kMaxGadgetsBytes) return error(CodecErrorKind::TooMany, "the gadget's text is too long");
  BP_TRY(auth, key_signature(m.party_key(), m.signature(), "party key"));
  return Message{JoinSessionMsg{m.session_id(),
                                {m.resume_token().begin(), m.resume_token().end()},
                                auth,
                                {m.seat_token().begin(), m.seat_token().end()},
                                m.values(),
                                m.gadget()}};
}

Result<Message, CodecError> decode_message(const pb::Joined& m, const Limits& limits) {
  const bool gadgets = !m.gadgets().empty();
  if (m.gadgets().size() > kMaxGadgetsBytes) return error(CodecErrorKind::TooMany, "the gadget list is too long");
  if (gadgets && (m.bits() != 0 || m.positions() > 1 || m.bounds_size() != 0))
    return error(CodecErrorKind::BadLength, "a gadget session's seat has no bits, bounds or second position");
  if (!gadgets && !is_valid_bitsize(m.bits())) return error(CodecErrorKind::BadLength, "bits is not 8, 16, 32 or 64");
  const uint32_t positions = m.positions() == 0 ? 1 : m.positions();  // 0: a 1.3 dealer's one
  const uint32_t session_positions = m.session_positions();
  if (session_positions == 0 || session_positions > limits.max_positions || m.position() >= session_positions ||
      positions > session_positions - m.position())
    return error(CodecErrorKind::BadLength, "position or session positions out of range");
  BP_TRY(bounds, value_bounds(m.bounds(), positions));
  if (!bounds.empty() && bounded_positions(bounds) != positions)
    return error(CodecErrorKind::BadLength, "the seat's bounds do not take its positions");
  if (m.transcript_label().size() > limits.max_transcript_label_bytes)
    return error(CodecErrorKind::TooMany, "label too long");
  if (m.resume_token().size() != kResumeTokenBytes)
    return error(CodecErrorKind::BadLength, "a resume token is 16 bytes");
  if (m.session_parties() > session_positions)
    return error(CodecErrorKind::BadLength, "more parties than the session has positions");
  return Message{JoinedMsg{m.position(),
                           m.bits(),
                           session_positions,
                           m.transcript_label(),
                           {m.resume_token().begin(), m.resume_token().end()},
                           positions,
                           std::move(bounds),
                           m.gadgets(),
                           m.session_parties()}};
}

Result<Message, CodecError> decode_message(const pb::Hello& m, const Limits&) {
  BP_TRY(nonce, fixed<kNonceBytes>(m.nonce(), "nonce"));
  BP_TRY(key, fixed<kPublicKeyBytes>(m.dealer_key(), "dealer key"));
  return Message{HelloMsg{nonce, key, m.anonymous_allowed(), m.tls_channel_binding(), m.minor_version()}};
}

Result<Message, CodecError> decode_message(const pb::ManageSessions& m, const Limits&) {
  if (static_cast<size_t>(m.cancel_size()) > kMaxManagedIds) return error(CodecErrorKind::TooMany, "too many ids");
  ManageSessionsMsg out;
  for (const auto& id : m.cancel()) {
    if (!valid_session_id(id)) return error(CodecErrorKind::BadLength, "malformed session id");
    out.cancel.push_back(id);
  }
  BP_TRY(auth, key_signature(m.operator_key(), m.signature(), "operator key"));
  out.operator_auth = auth;
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::SessionList& m, const Limits&) {
  if (static_cast<size_t>(m.sessions_size()) > kMaxListedSessions ||
      static_cast<size_t>(m.not_cancelled_size()) > kMaxManagedIds)
    return error(CodecErrorKind::TooMany, "too many sessions listed");
  SessionListMsg out;
  for (const auto& s : m.sessions()) {
    if (!valid_session_id(s.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
    if (s.phase().size() > 32) return error(CodecErrorKind::TooMany, "phase name too long");
    if (s.replica().size() > kMaxReplicaNameBytes) return error(CodecErrorKind::TooMany, "replica name too long");
    out.sessions.push_back({s.session_id(), s.bits(), s.parties(), s.joined(), s.phase(), s.replica()});
  }
  for (const auto& id : m.not_cancelled()) {
    if (!valid_session_id(id)) return error(CodecErrorKind::BadLength, "malformed session id");
    out.not_cancelled.push_back(id);
  }
  return Message{std::move(out)};
}

// 1.5: a gadget session's messages. A broadcast names 1 to max_positions seats and at most
// max_r1cs_commitments commitments in all.
template <class Out, class Repeated, class DecodeItem>
Result<Message, CodecError> decode_seats(const Repeated& m, const Limits& limits, const char* what,
                                         DecodeItem decode_item) {
  if (m.items_size() == 0 || static_cast<size_t>(m.items_size()) > limits.max_positions)
    return error(CodecErrorKind::TooMany,
                 std::string(what) + " of 1 to " + std::to_string(limits.max_positions) + " seats");
  Out out;
  for (const auto& c : m.items()) {
    BP_TRY(d, decode_item(c));
    out.items.push_back(std::move(d));
  }
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_message(const pb::R1CSFirstPhases& m, const Limits& limits) {
  size_t commitments = 0;
  for (const auto& item : m.items()) commitments += static_cast<size_t>(item.v_size());
  if (commitments > limits.max_r1cs_commitments)
    return error(CodecErrorKind::TooMany,
                 "first phases with more than " + std::to_string(limits.max_r1cs_commitments) + " commitments");
  return decode_seats<R1CSFirstPhases>(m, limits, "first phases",
                                       [&](const auto& c) { return r1cs_first_phase(c, limits.max_r1cs_commitments); });
}

Result<Message, CodecError> decode_message(const pb::R1CSResult& m, const Limits& limits) {
  if (m.gadgets().empty() || m.gadgets().size() > kMaxGadgetsBytes)
    return error(CodecErrorKind::BadLength, "a result names its gadget list");
  if (m.label().size() > limits.max_transcript_label_bytes) return error(CodecErrorKind::TooMany, "label too long");
  if (m.commitments_size() == 0 || static_cast<size_t>(m.commitments_size()) > limits.max_r1cs_commitments)
    return error(CodecErrorKind::TooMany,
                 "a result's commitments number 1 to " + std::to_string(limits.max_r1cs_commitments));
  R1CSResultMsg out;
  out.gadgets = m.gadgets();
  out.label = m.label();
  for (const auto& c : m.commitments()) {
    BP_TRY(p, point(c, "commitment"));
    out.commitments.push_back(p);
  }
  auto proof = R1CSProof::from_bytes(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.proof().data()), m.proof().size()));
  if (!proof) return error(CodecErrorKind::NonCanonical, "the proof does not parse");
  out.proof = std::move(*proof);
  if (!m.session_id().empty() || !m.dealer_key().empty() || !m.dealer_signature().empty()) {
    if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
    BP_TRY(key, fixed<kPublicKeyBytes>(m.dealer_key(), "dealer key"));
    BP_TRY(sig, fixed<kSignatureBytes>(m.dealer_signature(), "dealer signature"));
    out.attestation = Attestation{m.session_id(), key, sig};
  }
  return Message{std::move(out)};
}

Result<Message, CodecError> decode_body(const pb::Envelope& env, const Limits& limits) {
  switch (env.body_case()) {
    case pb::Envelope::kBitCommitment: return as_message(bit_commitment(env.bit_commitment()));
    case pb::Envelope::kPolyCommitment: return as_message(poly_commitment(env.poly_commitment()));
    case pb::Envelope::kBitChallenge: return decode_message(env.bit_challenge(), limits);
    case pb::Envelope::kPolyChallenge: return decode_message(env.poly_challenge(), limits);
    case pb::Envelope::kProofShare: return decode_message(env.proof_share(), limits);
    case pb::Envelope::kResult: return decode_message(env.result(), limits);
    case pb::Envelope::kAbort: return decode_message(env.abort(), limits);
    case pb::Envelope::kCreateSession: return decode_message(env.create_session(), limits);
    case pb::Envelope::kSessionCreated: return decode_message(env.session_created(), limits);
    case pb::Envelope::kJoinSession: return decode_message(env.join_session(), limits);
    case pb::Envelope::kJoined: return decode_message(env.joined(), limits);
    case pb::Envelope::kHello: return decode_message(env.hello(), limits);
    case pb::Envelope::kManageSessions: return decode_message(env.manage_sessions(), limits);
    case pb::Envelope::kSessionList: return decode_message(env.session_list(), limits);
    case pb::Envelope::kBitCommitments: return decode_message(env.bit_commitments(), limits);
    case pb::Envelope::kPolyCommitments: return decode_message(env.poly_commitments(), limits);
    case pb::Envelope::kProofShares: return decode_message(env.proof_shares(), limits);
    case pb::Envelope::kR1CsFirstPhase:
      return as_message(r1cs_first_phase(env.r1cs_first_phase(), limits.max_r1cs_commitments));
    case pb::Envelope::kR1CsFirstPhases: return decode_message(env.r1cs_first_phases(), limits);
    case pb::Envelope::kR1CsSecondPhase: return as_message(r1cs_second_phase(env.r1cs_second_phase()));
    case pb::Envelope::kR1CsSecondPhases:
      return decode_seats<R1CSSecondPhases>(env.r1cs_second_phases(), limits, "second phases",
                                            [](const auto& c) { return r1cs_second_phase(c); });
    case pb::Envelope::kR1CsPolyCommitment: return as_message(r1cs_poly(env.r1cs_poly_commitment()));
    case pb::Envelope::kR1CsPolyCommitments:
      return decode_seats<R1CSPolyShares>(env.r1cs_poly_commitments(), limits, "poly commitments",
                                          [](const auto& c) { return r1cs_poly(c); });
    case pb::Envelope::kR1CsProofShare:
      return as_message(r1cs_proof_share(env.r1cs_proof_share(), limits.max_r1cs_multipliers));
    case pb::Envelope::kR1CsResult: return decode_message(env.r1cs_result(), limits);
    case pb::Envelope::BODY_NOT_SET: break;
  }
  return error(CodecErrorKind::MissingBody, "the envelope carries no message");
}

}  // namespace

Result<Message, CodecError> decode(std::span<const uint8_t> frame, const Limits& limits) {
  if (frame.size() > limits.max_frame_bytes)
    return error(CodecErrorKind::FrameTooLarge, std::to_string(frame.size()) + " bytes is over the limit of " +
                                                    std::to_string(limits.max_frame_bytes));
  pb::Envelope env;
  if (!env.ParseFromArray(frame.data(), static_cast<int>(frame.size())))
    return error(CodecErrorKind::Unparseable, "not a protobuf Envelope");
  if (env.version() != kWireVersion)
    return error(CodecErrorKind::UnsupportedVersion,
                 "version " + std::to_string(env.version()) + ", this build speaks " + std::to_string(kWireVersion));
  return decode_body(env, limits);
}

}  // namespace bp::wire
