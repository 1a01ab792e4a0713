#include "session/outcome_json.hpp"

#include "bp/json.hpp"
#include "bp/wire/json.hpp"

namespace bp::server {

std::string outcome_json(const SessionOutcome& o) {
  JsonObject out;
  out.text("session_id", o.id).text("status", o.ok ? "completed" : "aborted");
  if (o.r1cs_result) {
    // As a party prints it (and parse_outcome_record reads it): gadgets, label, commitments,
    // proof and the attestation, under "session_id" for the record.
    const auto& r = *o.r1cs_result;
    out.text("gadgets", r.gadgets).text("label", r.label);
    out.hex_strings("commitments", r.commitments, [](const CompressedRistretto& c) { return std::span(c.bytes); });
    out.hex("proof", r.proof.to_bytes()).number("positions", o.params.positions);
    if (o.parties != 0) out.number("parties", o.parties);
    if (const auto& a = r.attestation) out.hex("dealer_key", a->dealer_key).hex("dealer_signature", a->signature);
  } else if (o.result) {
    const auto& r = o.result->result;
    wire::add_statement(out, r, o.result->bounds);
    out.number("positions", o.params.positions);
    if (o.parties != 0) out.number("parties", o.parties);
    out.numbers("padding", r.padding_positions).hex("proof", r.proof.to_bytes());
    if (const auto& a = o.result->attestation)
      out.hex("dealer_key", a->dealer_key).hex("dealer_signature", a->signature);
  } else {
    out.number("bits", o.params.bits).number("positions", o.params.positions);
    if (o.parties != 0) out.number("parties", o.parties);
    out.text("label", o.params.label);
    out.text("reason", o.reason).numbers("blamed", o.blamed);
  }
  if (o.listed_parties != 0) {
    std::vector<size_t> left_out(o.not_joined.begin(), o.not_joined.end());
    out.number("listed_parties", o.listed_parties).numbers("not_joined", left_out);
  }
  if (!o.predecessor.empty()) out.text("predecessor", o.predecessor);
  if (!o.successor.empty()) out.text("successor", o.successor);
  return out.str();
}

}  // namespace bp::server
