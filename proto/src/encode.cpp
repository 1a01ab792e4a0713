// Encoding: the protocol's messages into a versioned protobuf Envelope.
#include "bp/wire/codec.hpp"
#include "field_codec.hpp"

namespace bp::wire {

using namespace detail;

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
    void operator()(const ProofShare& s) { fill(env.mutable_proof_share(), s); }
    void operator()(const BitCommitments& b) {
      auto* m = env.mutable_bit_commitments();
      for (const auto& c : b.items) fill(m->add_items(), c);
    }
    void operator()(const PolyCommitments& p) {
      auto* m = env.mutable_poly_commitments();
      for (const auto& c : p.items) fill(m->add_items(), c);
    }
    void operator()(const ProofShares& p) {
      auto* m = env.mutable_proof_shares();
      for (const auto& s : p.items) fill(m->add_items(), s);
    }
    void operator()(const ResultMsg& message) {
      const auto& r = message.result;
      auto* m = env.mutable_result();
      if (message.attestation) {
        m->set_session_id(message.attestation->session_id);
        m->set_dealer_key(text_of(message.attestation->dealer_key));
        m->set_dealer_signature(text_of(message.attestation->signature));
      }
      m->set_bits(static_cast<uint32_t>(r.bits));
      m->set_label(r.label);
      for (const auto& c : r.commitments) m->add_commitments(bytes_of(c));
      for (size_t j : r.padding_positions) m->add_padding_positions(static_cast<uint32_t>(j));
      const auto proof = r.proof.to_bytes();
      m->set_proof(std::string(proof.begin(), proof.end()));
      fill_bounds(m->mutable_bounds(), message.bounds);
    }
    void operator()(const R1CSFirstPhaseShare& f) { fill(env.mutable_r1cs_first_phase(), f); }
    void operator()(const R1CSSecondPhaseShare& f) { fill(env.mutable_r1cs_second_phase(), f); }
    void operator()(const R1CSPolyShare& p) { fill(env.mutable_r1cs_poly_commitment(), p); }
    void operator()(const R1CSProofShare& p) { fill(env.mutable_r1cs_proof_share(), p); }
    void operator()(const R1CSFirstPhases& all) {
      auto* m = env.mutable_r1cs_first_phases();
      for (const auto& f : all.items) fill(m->add_items(), f);
    }
    void operator()(const R1CSSecondPhases& all) {
      auto* m = env.mutable_r1cs_second_phases();
      for (const auto& f : all.items) fill(m->add_items(), f);
    }
    void operator()(const R1CSPolyShares& all) {
      auto* m = env.mutable_r1cs_poly_commitments();
      for (const auto& p : all.items) fill(m->add_items(), p);
    }
    void operator()(const R1CSResultMsg& r) {
      auto* m = env.mutable_r1cs_result();
      m->set_gadgets(r.gadgets);
      m->set_label(r.label);
      for (const auto& c : r.commitments) m->add_commitments(bytes_of(c));
      const auto proof = r.proof.to_bytes();
      m->set_proof(std::string(proof.begin(), proof.end()));
      if (r.attestation) {
        m->set_session_id(r.attestation->session_id);
        m->set_dealer_key(text_of(r.attestation->dealer_key));
        m->set_dealer_signature(text_of(r.attestation->signature));
      }
    }
    void operator()(const AbortMsg& a) {
      auto* m = env.mutable_abort();
      m->set_reason(a.reason);
      for (size_t j : a.blamed) m->add_blamed(static_cast<uint32_t>(j));
      m->set_reconnect_after_ms(a.reconnect_after_ms);
      m->set_refusal(static_cast<pb::Refusal>(a.refusal));
      m->set_successor(a.successor);
    }
    void operator()(const CreateSessionMsg& c) {
      auto* m = env.mutable_create_session();
      m->set_bits(static_cast<uint32_t>(c.bits));
      m->set_parties(static_cast<uint32_t>(c.parties));
      m->set_label(c.label);
      m->set_round_timeout_ms(c.round_timeout_ms);
      for (const auto& k : c.allowed_parties) m->add_allowed_parties(text_of(k));
      m->set_session_id(c.session_id);
      for (uint32_t k : c.values_per_party) m->add_values_per_party(k);
      fill_bounds(m->mutable_bounds(), c.bounds);
      m->set_gadgets(c.gadgets);
      m->set_min_parties(c.min_parties);
      m->set_join_window_ms(c.join_window_ms);
      m->set_gadget_successors(c.gadget_successors);
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
      m->set_minor_version(h.minor_version);
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
      m->set_seat_token(std::string(j.seat_token.begin(), j.seat_token.end()));
      m->set_values(j.values);
      m->set_gadget(j.gadget);
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
        out->set_bits(static_cast<uint32_t>(s.bits));
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
      m->set_bits(static_cast<uint32_t>(j.bits));
      m->set_session_positions(static_cast<uint32_t>(j.session_positions));
      m->set_transcript_label(j.transcript_label);
      m->set_resume_token(std::string(j.resume_token.begin(), j.resume_token.end()));
      // 1.4: a one-position seat says nothing new, so its frame is the one a 1.3 dealer sends.
      if (j.positions != 1) m->set_positions(static_cast<uint32_t>(j.positions));
      fill_bounds(m->mutable_bounds(), j.bounds);
      m->set_gadgets(j.gadgets);
      m->set_session_parties(static_cast<uint32_t>(j.session_parties));
    }
  };
  std::visit(Visitor{env}, message);
  std::vector<uint8_t> out(env.ByteSizeLong());
  env.SerializeToArray(out.data(), static_cast<int>(out.size()));
  return out;
}

std::string describe(const CodecError& e) {
  static constexpr const char* kNames[] = {
      "FrameTooLarge", "Unparseable", "UnsupportedVersion", "MissingBody", "BadLength", "NonCanonical", "TooMany"};
  return std::string(kNames[static_cast<int>(e.kind)]) + ": " + e.detail;
}

}  // namespace bp::wire
