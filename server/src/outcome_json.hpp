// A session's outcome as the record keeps it and GET /v1/sessions/ID returns it. The public
// record names no party addresses (logs keep them; anyone who knows a session id can read it).
#pragma once

#include <string>

#include "session.hpp"

namespace bp::server {

std::string outcome_json(const SessionOutcome& outcome);
// What GET /v1/sessions/ID answers for a session that is still running (here or elsewhere).
std::string open_session_json(const std::string& id, const std::string& replica, const std::string& phase,
                              size_t parties, size_t joined);

}  // namespace bp::server
