#include "bp/wire/json.hpp"

#include "bp/json.hpp"

namespace bp::wire {

namespace {

// Session ids, 32 hex characters each (the decoder read them so): quoted as they are.
void add_chain(JsonObject& out, const std::vector<std::string>& chain) {
  if (!chain.empty())
    out.json("chain", "[" + comma_separated(chain, [](const std::string& id) { return "\"" + id + "\""; }) + "]");
}

JsonObject proof_fields(size_t bits, const std::string& label, const std::vector<CompressedRistretto>& commitments,
                        const std::vector<uint8_t>& proof) {
  JsonObject out;
  out.number("bits", bits).text("label", label);
  out.hex_strings("commitments", commitments, [](const CompressedRistretto& c) { return std::span(c.bytes); });
  out.hex("proof", proof);
  return out;
}
}  // namespace

std::string proof_json(size_t bits, const std::string& label, const std::vector<CompressedRistretto>& commitments,
                       const std::vector<uint8_t>& proof) {
  return proof_fields(bits, label, commitments, proof).str();
}

std::string bounds_json(const std::vector<ValueBounds>& bounds) {
  return "[" +
         comma_separated(bounds,
                         [](const ValueBounds& b) {
                           JsonObject o;
                           o.number("min", b.min);
                           if (b.max) o.number("max", *b.max);
                           return o.str();
                         }) +
         "]";
}

std::optional<BoundedStatement> bounded_statement(const mpc::AggregationResult& r,
                                                  const std::vector<ValueBounds>& bounds) {
  static const PedersenGens pc_gens;
  const std::string suffix = bounded_label("", bounds);
  const size_t used = bounded_positions(bounds);
  if (bounds.empty() || r.label.size() < suffix.size() || used > r.commitments.size() ||
      r.label.compare(r.label.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  auto values = value_commitments_of(pc_gens, std::span(r.commitments).first(used), bounds);
  if (!values) return std::nullopt;
  return BoundedStatement{r.label.substr(0, r.label.size() - suffix.size()), std::move(*values)};
}

void add_statement(JsonObject& out, const mpc::AggregationResult& r, const std::vector<ValueBounds>& bounds) {
  const auto to_bytes = [](const CompressedRistretto& c) { return std::span<const uint8_t>(c.bytes); };
  out.number("bits", r.bits);
  if (auto statement = bounded_statement(r, bounds)) {
    out.text("label", statement->label).json("bounds", bounds_json(bounds));
    out.hex_strings("commitments", statement->commitments, to_bytes);
    out.hex_strings("positions", r.commitments, to_bytes).text("transcript_label", r.label);
  } else {
    out.text("label", r.label).hex_strings("commitments", r.commitments, to_bytes);
  }
}

std::string result_json(const mpc::AggregationResult& r, std::optional<size_t> position,
                        const std::optional<Attestation>& attestation, const std::vector<ValueBounds>& bounds,
                        size_t position_count, const std::vector<std::string>& chain) {
  JsonObject out;
  add_statement(out, r, bounds);
  out.hex("proof", r.proof.to_bytes());
  out.numbers("padding", r.padding_positions);
  if (position) out.number("position", *position).number("position_count", position_count);
  if (attestation)
    out.text("session", attestation->session_id)
        .hex("dealer_key", attestation->dealer_key)
        .hex("dealer_signature", attestation->signature);
  add_chain(out, chain);
  return out.str();
}

std::string r1cs_result_json(const R1CSResultMsg& r, std::optional<size_t> seat,
                             const std::vector<std::string>& chain) {
  JsonObject out;
  out.text("gadgets", r.gadgets).text("label", r.label);
  out.hex_strings("commitments", r.commitments, [](const CompressedRistretto& c) { return std::span(c.bytes); });
  out.hex("proof", r.proof.to_bytes());
  if (seat) out.number("seat", *seat);
  if (r.attestation)
    out.text("session", r.attestation->session_id)
        .hex("dealer_key", r.attestation->dealer_key)
        .hex("dealer_signature", r.attestation->signature);
  add_chain(out, chain);
  return out.str();
}

}  // namespace bp::wire
