// A session's outcome as the record keeps it, and as GET /v1/sessions/ID and a returning
// party get it back (proto's parse_outcome_record reads it): the signed result, or the abort
// with its reason and blamed positions. It names no party addresses (logs keep them; anyone
// who knows a session id can read it).
#pragma once

#include <string>

#include "session/session.hpp"

namespace bp::server {

std::string outcome_json(const SessionOutcome& outcome);

}  // namespace bp::server
