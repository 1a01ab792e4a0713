// Every JSON body the dealer writes: a session's outcome as the record keeps it and
// GET /v1/sessions/ID returns it, a running session's description, the answer to
// POST /v1/verify, and error bodies. The public record names no party addresses (logs keep
// them; anyone who knows a session id can read it).
#pragma once

#include <string>
#include <vector>

#include "session.hpp"

namespace bp::server {

std::string outcome_json(const SessionOutcome& outcome);
// What GET /v1/sessions/ID answers for a session that is still running (here or elsewhere).
std::string open_session_json(const std::string& id, const std::string& replica, const std::string& phase,
                              size_t parties, size_t joined);
// POST /v1/verify's answer: whether every proof verified, how many, and which did not.
std::string verify_answer_json(bool ok, size_t proofs, const std::vector<size_t>& failed);
std::string error_json(const std::string& why);  // {"error": why}

}  // namespace bp::server
