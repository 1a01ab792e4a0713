#include "bp/wire/json.hpp"

#include "bp/hex.hpp"
#include "bp/json.hpp"

namespace bp::wire {

std::string proof_json(size_t bits, const std::string& label, const std::vector<CompressedRistretto>& commitments,
                       const std::vector<uint8_t>& proof) {
  std::string out = "{\"bits\":" + std::to_string(bits) + ",\"label\":" + json_string(label) + ",\"commitments\":[";
  for (size_t j = 0; j < commitments.size(); ++j) out += (j ? ",\"" : "\"") + to_hex(commitments[j].bytes) + "\"";
  return out + "],\"proof\":\"" + to_hex(proof) + "\"}";
}

std::string result_json(const mpc::AggregationResult& r, std::optional<size_t> position,
                        const std::optional<Attestation>& attestation) {
  std::string out = proof_json(r.n, r.label, r.commitments, r.proof.to_bytes());
  out.pop_back();  // reopen the object
  out += ",\"padding\":[";
  out += comma_separated(r.padding_positions);
  out += "]";
  if (position) out += ",\"position\":" + std::to_string(*position);
  if (attestation)
    out += ",\"session\":" + json_string(attestation->session_id) + ",\"dealer_key\":\"" +
           to_hex(attestation->dealer_key) + "\",\"dealer_signature\":\"" + to_hex(attestation->signature) + "\"";
  return out + "}";
}

}  // namespace bp::wire
