#include "outcome_json.hpp"

#include "bp/hex.hpp"
#include "bp/json.hpp"

namespace bp::server {
namespace {

template <class T, class F>
std::string json_array(const std::vector<T>& items, F&& each) {
  std::string out = "[";
  out += comma_separated(items, each);
  out += "]";
  return out;
}

}  // namespace

std::string outcome_json(const SessionOutcome& o) {
  std::string out = "{\"session_id\":" + json_string(o.id) + ",\"status\":\"" + (o.ok ? "completed" : "aborted") +
                    "\",\"bits\":" + std::to_string(o.params.n) + ",\"parties\":" + std::to_string(o.params.parties) +
                    ",\"label\":" + json_string(o.params.label);
  if (o.result) {
    const auto& r = o.result->result;
    out += ",\"commitments\":" +
           json_array(r.commitments, [](const CompressedRistretto& c) { return "\"" + to_hex(c.bytes) + "\""; });
    out += ",\"padding\":" + json_array(r.padding_positions, [](size_t j) { return std::to_string(j); });
    out += ",\"proof\":\"" + to_hex(r.proof.to_bytes()) + "\"";
    if (const auto& a = o.result->attestation)
      out += ",\"dealer_key\":\"" + to_hex(a->dealer_key) + "\",\"dealer_signature\":\"" + to_hex(a->signature) + "\"";
  } else {
    out += ",\"reason\":" + json_string(o.reason) +
           ",\"blamed\":" + json_array(o.blamed, [](size_t j) { return std::to_string(j); });
  }
  return out + "}";
}

std::string open_session_json(const std::string& id, const std::string& replica, const std::string& phase,
                              size_t parties, size_t joined) {
  return "{\"session_id\":" + json_string(id) + ",\"status\":\"open\",\"phase\":" + json_string(phase) +
         ",\"replica\":" + json_string(replica) + ",\"parties\":" + std::to_string(parties) +
         ",\"joined\":" + std::to_string(joined) + "}";
}

}  // namespace bp::server
