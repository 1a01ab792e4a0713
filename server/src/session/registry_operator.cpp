// What an operator changes and sees of the registry while it runs: the limits a reload sets
// (SIGHUP, POST /v1/reload) and the listing of every running session (GET /v1/sessions).
#include <algorithm>

#include "session/registry.hpp"

namespace bp::server {

SessionLimits SessionLimits::of(const DealerConfig& config) {
  return {config.max_sessions,
          config.max_sessions_per_ip,
          config.max_sessions_per_operator,
          config.max_anonymous_sessions_per_ip,
          config.max_parties,
          config.default_round_timeout_ms,
          config.max_round_timeout_ms};
}

void SessionRegistry::set_limits(const SessionLimits& limits) {
  std::lock_guard lock(mutex_);
  limits_ = limits;
}

std::vector<SessionListing> SessionRegistry::listing() {
  std::lock_guard lock(mutex_);
  std::vector<SessionListing> out;
  for (const auto& [id, entry] : sessions_) {
    const auto& session = entry.session;
    if (session->finished()) continue;
    auto summary = session->summary();
    summary.replica = records_.replica();
    out.push_back({std::move(summary), owner_text(session->owner()),
                   std::chrono::duration<double>(session->running_for()).count()});
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.summary.session_id < b.summary.session_id; });
  return out;
}

}  // namespace bp::server
