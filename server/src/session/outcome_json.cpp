#include "session/outcome_json.hpp"

#include "bp/json.hpp"
#include "bp/wire/json.hpp"

namespace bp::server {

std::string outcome_json(const SessionOutcome& o) {
  JsonObject out;
  out.text("session_id", o.id).text("status", o.ok ? "completed" : "aborted");
  if (o.result) {
    const auto& r = o.result->result;
    wire::add_statement(out, r, o.result->bounds);
    out.number("positions", o.params.positions);
    if (o.parties != 0) out.number("parties", o.parties);
    out.numbers("padding", r.padding_positions).hex("proof", r.proof.to_bytes());
    if (const auto& a = o.result->attestation)
      out.hex("dealer_key", a->dealer_key).hex("dealer_signature", a->signature);
  } else {
    out.number("bits", o.params.n).number("positions", o.params.positions);
    if (o.parties != 0) out.number("parties", o.parties);
    out.text("label", o.params.label);
    out.text("reason", o.reason).numbers("blamed", o.blamed);
  }
  return out.str();
}

}  // namespace bp::server
