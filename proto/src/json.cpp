#include "bp/wire/json.hpp"

#include "bp/json.hpp"

namespace bp::wire {

namespace {
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

std::string result_json(const mpc::AggregationResult& r, std::optional<size_t> position,
                        const std::optional<Attestation>& attestation) {
  JsonObject out = proof_fields(r.n, r.label, r.commitments, r.proof.to_bytes());
  out.numbers("padding", r.padding_positions);
  if (position) out.number("position", *position);
  if (attestation)
    out.text("session", attestation->session_id)
        .hex("dealer_key", attestation->dealer_key)
        .hex("dealer_signature", attestation->signature);
  return out.str();
}

}  // namespace bp::wire
