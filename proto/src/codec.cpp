#include "bp/wire/codec.hpp"

#include <sodium.h>

#include <cstring>

#include "aggregation.pb.h"
#include "bp/hex.hpp"
#include "bp/wire/auth.hpp"

namespace bp::wire {
namespace {

namespace pb = ::bp::wire::v1;

CodecError error(CodecErrorKind kind, std::string detail) { return {kind, std::move(detail)}; }


// ---- encoding ----

std::string bytes_of(const CompressedRistretto& p) { return {reinterpret_cast<const char*>(p.bytes.data()), 32}; }
std::string bytes_of(const Scalar& s) {
  const auto b = s.to_bytes();
  return {reinterpret_cast<const char*>(b.data()), 32};
}
std::string bytes_of(const std::vector<Scalar>& v) {
  std::string out;
  out.reserve(32 * v.size());
  for (const auto& s : v) out += bytes_of(s);
  return out;
}

void fill(pb::BitCommitment* out, const BitCommitment& c) {
  out->set_v(bytes_of(c.V_j));
  out->set_a(bytes_of(c.A_j));
  out->set_s(bytes_of(c.S_j));
}
void fill(pb::PolyCommitment* out, const PolyCommitment& c) {
  out->set_t1(bytes_of(c.T_1_j));
  out->set_t2(bytes_of(c.T_2_j));
}

// ---- decoding: every field checked ----

Result<CompressedRistretto, CodecError> point(const std::string& b, const char* what) {
  if (b.size() != 32) return error(CodecErrorKind::BadLength, std::string(what) + " is not 32 bytes");
  CompressedRistretto p;
  std::memcpy(p.bytes.data(), b.data(), 32);
  if (!RistrettoPoint::decompress(p)) return error(CodecErrorKind::NonCanonical, std::string(what) + " does not decode");
  return p;
}

Result<Scalar, CodecError> scalar(const std::string& b, const char* what) {
  if (b.size() != 32) return error(CodecErrorKind::BadLength, std::string(what) + " is not 32 bytes");
  auto s = Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(reinterpret_cast<const uint8_t*>(b.data()), 32));
  if (!s) return error(CodecErrorKind::NonCanonical, std::string(what) + " is not a canonical scalar");
  return *s;
}

Result<std::vector<Scalar>, CodecError> scalars(const std::string& b, const char* what, size_t max) {
  if (b.size() % 32 != 0) return error(CodecErrorKind::BadLength, std::string(what) + " is not a whole number of scalars");
  if (b.size() / 32 > max) return error(CodecErrorKind::TooMany, std::string(what) + " has too many scalars");
  std::vector<Scalar> out;
  out.reserve(b.size() / 32);
  for (size_t i = 0; i < b.size(); i += 32) {
    auto s = scalar(b.substr(i, 32), what);
    if (!s) return s.error();
    out.push_back(*s);
  }
  return out;
}

template <size_t N>
Result<std::array<uint8_t, N>, CodecError> fixed(const std::string& b, const char* what) {
  if (b.size() != N) return error(CodecErrorKind::BadLength, std::string(what) + " is not " + std::to_string(N) + " bytes");
  std::array<uint8_t, N> out;
  std::memcpy(out.data(), b.data(), N);
  return out;
}

// A key and a signature, both present or both absent.
Result<std::optional<KeySignature>, CodecError> key_signature(const std::string& key, const std::string& sig,
                                                             const char* what) {
  if (key.empty() && sig.empty()) return std::optional<KeySignature>{};
  auto k = fixed<kPublicKeyBytes>(key, what);
  if (!k) return k.error();
  auto s = fixed<kSignatureBytes>(sig, "signature");
  if (!s) return s.error();
  return std::optional<KeySignature>{KeySignature{*k, *s}};
}

std::string text_of(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// Tries each decoder in turn, stopping at the first error.
#define BP_TRY(var, expr)          \
  auto var##_result = (expr);      \
  if (!var##_result) return var##_result.error(); \
  auto var = std::move(*var##_result)

Result<BitCommitment, CodecError> decode(const pb::BitCommitment& m) {
  BP_TRY(V, point(m.v(), "V"));
  BP_TRY(A, point(m.a(), "A"));
  BP_TRY(S, point(m.s(), "S"));
  return BitCommitment{V, A, S};
}

Result<PolyCommitment, CodecError> decode(const pb::PolyCommitment& m) {
  BP_TRY(T1, point(m.t1(), "T1"));
  BP_TRY(T2, point(m.t2(), "T2"));
  return PolyCommitment{T1, T2};
}

Result<Message, CodecError> decode_body(const pb::Envelope& env, const Limits& limits) {
  switch (env.body_case()) {
    case pb::Envelope::kBitCommitment: {
      BP_TRY(c, decode(env.bit_commitment()));
      return Message{c};
    }
    case pb::Envelope::kPolyCommitment: {
      BP_TRY(c, decode(env.poly_commitment()));
      return Message{c};
    }
    case pb::Envelope::kBitChallenge: {
      const auto& m = env.bit_challenge();
      if (static_cast<size_t>(m.commitments_size()) > limits.max_parties)
        return error(CodecErrorKind::TooMany, "bit challenge lists too many commitments");
      mpc::BitChallengeMsg out;
      BP_TRY(y, scalar(m.y(), "y"));
      BP_TRY(z, scalar(m.z(), "z"));
      out.y = y;
      out.z = z;
      for (const auto& c : m.commitments()) {
        BP_TRY(d, decode(c));
        out.bit_commitments.push_back(d);
      }
      return Message{std::move(out)};
    }
    case pb::Envelope::kPolyChallenge: {
      const auto& m = env.poly_challenge();
      if (static_cast<size_t>(m.commitments_size()) > limits.max_parties)
        return error(CodecErrorKind::TooMany, "poly challenge lists too many commitments");
      mpc::PolyChallengeMsg out;
      BP_TRY(x, scalar(m.x(), "x"));
      out.x = x;
      for (const auto& c : m.commitments()) {
        BP_TRY(d, decode(c));
        out.poly_commitments.push_back(d);
      }
      return Message{std::move(out)};
    }
    case pb::Envelope::kProofShare: {
      const auto& m = env.proof_share();
      ProofShare out;
      BP_TRY(t_x, scalar(m.t_x(), "t_x"));
      BP_TRY(t_x_blinding, scalar(m.t_x_blinding(), "t_x_blinding"));
      BP_TRY(e_blinding, scalar(m.e_blinding(), "e_blinding"));
      BP_TRY(l, scalars(m.l(), "l", limits.max_bits));
      BP_TRY(r, scalars(m.r(), "r", limits.max_bits));
      out.t_x = t_x;
      out.t_x_blinding = t_x_blinding;
      out.e_blinding = e_blinding;
      out.l_vec = std::move(l);
      out.r_vec = std::move(r);
      return Message{std::move(out)};
    }
    case pb::Envelope::kResult: {
      const auto& m = env.result();
      if (!is_valid_bitsize(m.n())) return error(CodecErrorKind::BadLength, "n is not 8, 16, 32 or 64");
      if (m.label().size() > limits.max_label_bytes) return error(CodecErrorKind::TooMany, "label too long");
      const size_t count = static_cast<size_t>(m.commitments_size());
      if (count == 0 || count > limits.max_parties || !is_power_of_two(count))
        return error(CodecErrorKind::TooMany, "the commitments are not a power of two up to the party limit");
      if (static_cast<size_t>(m.padding_positions_size()) >= count)
        return error(CodecErrorKind::TooMany, "more padding positions than commitments");
      mpc::AggregationResult out;
      out.n = m.n();
      out.label = m.label();
      for (const auto& c : m.commitments()) {
        BP_TRY(p, point(c, "commitment"));
        out.commitments.push_back(p);
      }
      for (uint32_t j : m.padding_positions()) {
        if (j >= count) return error(CodecErrorKind::BadLength, "a padding position outside the session");
        out.padding_positions.push_back(j);
      }
      if (m.proof().size() != RangeProof::serialized_size(out.n, count))
        return error(CodecErrorKind::BadLength, "the proof has the wrong length for n and m");
      auto proof = RangeProof::from_bytes(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.proof().data()), m.proof().size()));
      if (!proof) return error(CodecErrorKind::NonCanonical, "the proof does not parse");
      out.proof = std::move(*proof);
      ResultMsg message{std::move(out), std::nullopt};
      if (!m.session_id().empty() || !m.dealer_key().empty() || !m.dealer_signature().empty()) {
        if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
        BP_TRY(key, fixed<kPublicKeyBytes>(m.dealer_key(), "dealer key"));
        BP_TRY(sig, fixed<kSignatureBytes>(m.dealer_signature(), "dealer signature"));
        message.attestation = Attestation{m.session_id(), key, sig};
      }
      return Message{std::move(message)};
    }
    case pb::Envelope::kAbort: {
      const auto& m = env.abort();
      if (m.reason().size() > limits.max_label_bytes) return error(CodecErrorKind::TooMany, "abort reason too long");
      if (static_cast<size_t>(m.blamed_size()) > limits.max_parties)
        return error(CodecErrorKind::TooMany, "too many blamed positions");
      AbortMsg out{m.reason(), {}};
      for (uint32_t j : m.blamed()) {
        if (j >= limits.max_parties) return error(CodecErrorKind::BadLength, "a blamed position outside any session");
        out.blamed.push_back(j);
      }
      return Message{std::move(out)};
    }
    case pb::Envelope::kCreateSession: {
      const auto& m = env.create_session();
      if (!is_valid_bitsize(m.n())) return error(CodecErrorKind::BadLength, "n is not 8, 16, 32 or 64");
      if (m.parties() == 0 || m.parties() > limits.max_parties)
        return error(CodecErrorKind::TooMany, "parties must be 1.." + std::to_string(limits.max_parties));
      if (m.label().size() > limits.max_label_bytes) return error(CodecErrorKind::TooMany, "label too long");
      if (m.allowed_parties_size() != 0 && static_cast<uint32_t>(m.allowed_parties_size()) != m.parties())
        return error(CodecErrorKind::BadLength, "the allow-list names one key per party or none");
      CreateSessionMsg out{m.n(), m.parties(), m.label(), m.round_timeout_ms(), {}, {}, {}};
      for (const auto& k : m.allowed_parties()) {
        BP_TRY(key, fixed<kPublicKeyBytes>(k, "allowed party key"));
        out.allowed_parties.push_back(key);
      }
      BP_TRY(auth, key_signature(m.operator_key(), m.signature(), "operator key"));
      out.operator_auth = auth;
      if (!m.session_id().empty() && !valid_session_id(m.session_id()))
        return error(CodecErrorKind::BadLength, "malformed proposed session id");
      out.session_id = m.session_id();
      return Message{std::move(out)};
    }
    case pb::Envelope::kSessionCreated: {
      const auto& m = env.session_created();
      if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
      if (m.transcript_label().size() > 2 * limits.max_label_bytes)
        return error(CodecErrorKind::TooMany, "label too long");
      return Message{SessionCreatedMsg{m.session_id(), m.transcript_label()}};
    }
    case pb::Envelope::kJoinSession: {
      const auto& m = env.join_session();
      if (!valid_session_id(m.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
      if (!m.resume_token().empty() && m.resume_token().size() != kResumeTokenBytes)
        return error(CodecErrorKind::BadLength, "a resume token is 16 bytes");
      BP_TRY(auth, key_signature(m.party_key(), m.signature(), "party key"));
      return Message{JoinSessionMsg{m.session_id(), {m.resume_token().begin(), m.resume_token().end()}, auth}};
    }
    case pb::Envelope::kJoined: {
      const auto& m = env.joined();
      if (!is_valid_bitsize(m.n())) return error(CodecErrorKind::BadLength, "n is not 8, 16, 32 or 64");
      if (m.parties() == 0 || m.parties() > limits.max_parties || m.position() >= m.parties())
        return error(CodecErrorKind::BadLength, "position or parties out of range");
      if (m.transcript_label().size() > 2 * limits.max_label_bytes)
        return error(CodecErrorKind::TooMany, "label too long");
      if (m.resume_token().size() != kResumeTokenBytes) return error(CodecErrorKind::BadLength, "a resume token is 16 bytes");
      return Message{JoinedMsg{m.position(), m.n(), m.parties(), m.transcript_label(),
                               {m.resume_token().begin(), m.resume_token().end()}}};
    }
    case pb::Envelope::kHello: {
      const auto& m = env.hello();
      BP_TRY(nonce, fixed<kNonceBytes>(m.nonce(), "nonce"));
      BP_TRY(key, fixed<kPublicKeyBytes>(m.dealer_key(), "dealer key"));
      return Message{HelloMsg{nonce, key, m.anonymous_allowed(), m.tls_channel_binding()}};
    }
    case pb::Envelope::kManageSessions: {
      const auto& m = env.manage_sessions();
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
    case pb::Envelope::kSessionList: {
      const auto& m = env.session_list();
      if (static_cast<size_t>(m.sessions_size()) > kMaxListedSessions ||
          static_cast<size_t>(m.not_cancelled_size()) > kMaxManagedIds)
        return error(CodecErrorKind::TooMany, "too many sessions listed");
      SessionListMsg out;
      for (const auto& s : m.sessions()) {
        if (!valid_session_id(s.session_id())) return error(CodecErrorKind::BadLength, "malformed session id");
        if (s.phase().size() > 32) return error(CodecErrorKind::TooMany, "phase name too long");
        if (s.replica().size() > kMaxReplicaNameBytes) return error(CodecErrorKind::TooMany, "replica name too long");
        out.sessions.push_back({s.session_id(), s.n(), s.parties(), s.joined(), s.phase(), s.replica()});
      }
      for (const auto& id : m.not_cancelled()) {
        if (!valid_session_id(id)) return error(CodecErrorKind::BadLength, "malformed session id");
        out.not_cancelled.push_back(id);
      }
      return Message{std::move(out)};
    }
    case pb::Envelope::BODY_NOT_SET:
      break;
  }
  return error(CodecErrorKind::MissingBody, "the envelope carries no message");
}

#undef BP_TRY

}  // namespace

bool valid_session_id(std::string_view id) {
  return id.size() == kSessionIdChars && id.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::string random_session_id() {
  uint8_t raw[kSessionIdChars / 2];
  randombytes_buf(raw, sizeof raw);
  return to_hex(raw);
}

namespace {
constexpr std::string_view kSessionPathPrefix = "/v1/session/";
}

std::string session_path(std::string_view id) { return std::string(kSessionPathPrefix) + std::string(id); }

std::optional<std::string> session_id_in_path(std::string_view target) {
  // A prefix before it is allowed (an ingress may mount the dealer under a path).
  const auto at = target.rfind(kSessionPathPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  const auto id = target.substr(at + kSessionPathPrefix.size());
  if (!valid_session_id(id)) return std::nullopt;
  return std::string(id);
}

bool attestation_valid(const ResultMsg& message) {
  if (!message.attestation) return false;
  const auto& a = *message.attestation;
  return verify_signature(a.dealer_key, result_statement(a.dealer_key, a.session_id, message.result), a.signature);
}

std::string describe(const CodecError& e) {
  static constexpr const char* kNames[] = {"FrameTooLarge", "Unparseable", "UnsupportedVersion", "MissingBody",
                                           "BadLength",     "NonCanonical", "TooMany"};
  return std::string(kNames[static_cast<int>(e.kind)]) + ": " + e.detail;
}

std::vector<uint8_t> encode(const Message& message) {
  pb::Envelope env;
  env.set_version(kWireVersion);
  struct Visitor {
    pb::Envelope& env;
    void operator()(const BitCommitment& c) { fill(env.mutable_bit_commitment(), c); }
    void operator()(const PolyCommitment& c) { fill(env.mutable_poly_commitment(), c); }
    void operator()(const mpc::BitChallengeMsg& c) {
      auto* m = env.mutable_bit_challenge();
      m->set_y(bytes_of(c.y));
      m->set_z(bytes_of(c.z));
      for (const auto& b : c.bit_commitments) fill(m->add_commitments(), b);
    }
    void operator()(const mpc::PolyChallengeMsg& c) {
      auto* m = env.mutable_poly_challenge();
      m->set_x(bytes_of(c.x));
      for (const auto& p : c.poly_commitments) fill(m->add_commitments(), p);
    }
    void operator()(const ProofShare& s) {
      auto* m = env.mutable_proof_share();
      m->set_t_x(bytes_of(s.t_x));
      m->set_t_x_blinding(bytes_of(s.t_x_blinding));
      m->set_e_blinding(bytes_of(s.e_blinding));
      m->set_l(bytes_of(s.l_vec));
      m->set_r(bytes_of(s.r_vec));
    }
    void operator()(const ResultMsg& message) {
      const auto& r = message.result;
      auto* m = env.mutable_result();
      if (message.attestation) {
        m->set_session_id(message.attestation->session_id);
        m->set_dealer_key(text_of(message.attestation->dealer_key));
        m->set_dealer_signature(text_of(message.attestation->signature));
      }
      m->set_n(static_cast<uint32_t>(r.n));
      m->set_label(r.label);
      for (const auto& c : r.commitments) m->add_commitments(bytes_of(c));
      for (size_t j : r.padding_positions) m->add_padding_positions(static_cast<uint32_t>(j));
      const auto proof = r.proof.to_bytes();
      m->set_proof(std::string(proof.begin(), proof.end()));
    }
    void operator()(const AbortMsg& a) {
      auto* m = env.mutable_abort();
      m->set_reason(a.reason);
      for (size_t j : a.blamed) m->add_blamed(static_cast<uint32_t>(j));
    }
    void operator()(const CreateSessionMsg& c) {
      auto* m = env.mutable_create_session();
      m->set_n(static_cast<uint32_t>(c.n));
      m->set_parties(static_cast<uint32_t>(c.parties));
      m->set_label(c.label);
      m->set_round_timeout_ms(c.round_timeout_ms);
      for (const auto& k : c.allowed_parties) m->add_allowed_parties(text_of(k));
      m->set_session_id(c.session_id);
      if (c.operator_auth) {
        m->set_operator_key(text_of(c.operator_auth->key));
        m->set_signature(text_of(c.operator_auth->signature));
      }
    }
    void operator()(const HelloMsg& h) {
      auto* m = env.mutable_hello();
      m->set_nonce(text_of(h.nonce));
      m->set_dealer_key(text_of(h.dealer_key));
      m->set_anonymous_allowed(h.anonymous_allowed);
      m->set_tls_channel_binding(h.tls_channel_binding);
    }
    void operator()(const SessionCreatedMsg& c) {
      auto* m = env.mutable_session_created();
      m->set_session_id(c.session_id);
      m->set_transcript_label(c.transcript_label);
    }
    void operator()(const JoinSessionMsg& j) {
      auto* m = env.mutable_join_session();
      m->set_session_id(j.session_id);
      m->set_resume_token(std::string(j.resume_token.begin(), j.resume_token.end()));
      if (j.party_auth) {
        m->set_party_key(text_of(j.party_auth->key));
        m->set_signature(text_of(j.party_auth->signature));
      }
    }
    void operator()(const ManageSessionsMsg& r) {
      auto* m = env.mutable_manage_sessions();
      for (const auto& id : r.cancel) m->add_cancel(id);
      if (r.operator_auth) {
        m->set_operator_key(text_of(r.operator_auth->key));
        m->set_signature(text_of(r.operator_auth->signature));
      }
    }
    void operator()(const SessionListMsg& l) {
      auto* m = env.mutable_session_list();
      for (const auto& s : l.sessions) {
        auto* out = m->add_sessions();
        out->set_session_id(s.session_id);
        out->set_n(static_cast<uint32_t>(s.n));
        out->set_parties(static_cast<uint32_t>(s.parties));
        out->set_joined(static_cast<uint32_t>(s.joined));
        out->set_phase(s.phase);
        out->set_replica(s.replica);
      }
      for (const auto& id : l.not_cancelled) m->add_not_cancelled(id);
    }
    void operator()(const JoinedMsg& j) {
      auto* m = env.mutable_joined();
      m->set_position(static_cast<uint32_t>(j.position));
      m->set_n(static_cast<uint32_t>(j.n));
      m->set_parties(static_cast<uint32_t>(j.parties));
      m->set_transcript_label(j.transcript_label);
      m->set_resume_token(std::string(j.resume_token.begin(), j.resume_token.end()));
    }
  };
  std::visit(Visitor{env}, message);
  std::vector<uint8_t> out(env.ByteSizeLong());
  env.SerializeToArray(out.data(), static_cast<int>(out.size()));
  return out;
}

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
