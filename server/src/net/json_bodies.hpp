// The JSON bodies of the dealer's HTTP answers: a running session's description, the answer
// to POST /v1/verify, and error bodies (a finished session's is its outcome record,
// session/outcome_json.hpp).
#pragma once

#include <string>
#include <vector>

namespace bp::server {

// What GET /v1/sessions/ID answers for a session that is still running (here or elsewhere).
std::string open_session_json(const std::string& id, const std::string& replica, const std::string& phase,
                              size_t parties, size_t joined);
// POST /v1/verify's answer: whether every proof verified, how many, and which did not.
std::string verify_answer_json(bool ok, size_t proofs, const std::vector<size_t>& failed);
std::string error_json(const std::string& why);  // {"error": why}

}  // namespace bp::server
