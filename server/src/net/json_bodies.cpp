#include "net/json_bodies.hpp"

#include "bp/json.hpp"

namespace bp::server {

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
