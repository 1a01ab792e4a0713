// GET /v1/sessions on the metrics listener: the sessions this replica runs, filtered and paged
// as the query asks (?phase=join&min_running_s=60&limit=100&after=ID). Public data only:
// ids, phases, counts, owners and times, never a party's key or a commitment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "net/http_routes.hpp"
#include "session/registry.hpp"

namespace bp::server {

inline constexpr size_t kListingDefaultLimit = 100;
inline constexpr size_t kListingMaxLimit = 1000;

// The answer to `query` (what follows '?' in the target, possibly empty) over `sessions`
// (sorted by id): 200 with {"sessions":[...],"next":ID or null}, or 400 naming a bad parameter.
HttpAnswer session_listing(std::string_view query, const std::vector<SessionListing>& sessions);

}  // namespace bp::server
