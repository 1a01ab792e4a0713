#include "json_bodies.hpp"

#include "bp/json.hpp"

namespace bp::server {

std::string outcome_json(const SessionOutcome& o) {
  JsonObject out;
  out.text("session_id", o.id).text("status", o.ok ? "completed" : "aborted");
  out.number("bits", o.params.n).number("parties", o.params.parties).text("label", o.params.label);
  if (o.result) {
    const auto& r = o.result->result;
    out.hex_strings("commitments", r.commitments, [](const CompressedRistretto& c) { return std::span(c.bytes); });
    out.numbers("padding", r.padding_positions).hex("proof", r.proof.to_bytes());
    if (const auto& a = o.result->attestation)
      out.hex("dealer_key", a->dealer_key).hex("dealer_signature", a->signature);
  } else {
    out.text("reason", o.reason).numbers("blamed", o.blamed);
  }
  return out.str();
}

std::string open_session_json(const std::string& id, const std::string& replica, const std::string& phase,
                              size_t parties, size_t joined) {
  return JsonObject()
      .text("session_id", id)
      .text("status", "open")
      .text("phase", phase)
      .text("replica", replica)
      .number("parties", parties)
      .number("joined", joined)
      .str();
}

std::string verify_answer_json(bool ok, size_t proofs, const std::vector<size_t>& failed) {
  return JsonObject().boolean("ok", ok).number("proofs", proofs).numbers("failed", failed).str();
}

std::string error_json(const std::string& why) { return JsonObject().text("error", why).str(); }

}  // namespace bp::server
