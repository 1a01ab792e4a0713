#include "registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace bp::server {

SessionRegistry::SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env,
                                 OutcomeStore& store)
    : ioc_(ioc), config_(config), env_(std::move(env)), store_(store) {}

void SessionRegistry::prune_locked() {
  for (auto it = sessions_.begin(); it != sessions_.end();) it = it->second->finished() ? sessions_.erase(it) : std::next(it);
}

std::optional<std::string> SessionRegistry::over_cap_locked(const SessionOwner& owner) const {
  size_t same_owner = 0, same_address = 0;
  for (const auto& [id, session] : sessions_) {
    if (session->finished()) continue;
    same_owner += session->owner().same_as(owner);
    same_address += session->owner().address == owner.address;
  }
  if (owner.operator_key && same_owner >= config_.max_sessions_per_operator)
    return "this operator has " + std::to_string(same_owner) + " open sessions, its limit";
  if (!owner.operator_key && same_owner >= config_.max_anonymous_sessions_per_ip)
    return "your address has " + std::to_string(same_owner) + " open unsigned sessions, its limit";
  if (same_address >= config_.max_sessions_per_ip)
    return "your address has " + std::to_string(same_address) + " open sessions, its limit";
  return std::nullopt;
}

std::variant<std::shared_ptr<AggregationSession>, std::string> SessionRegistry::create(
    const wire::CreateSessionMsg& request, SessionOwner owner) {
  std::lock_guard lock(mutex_);
  if (!accepting_) return std::string("the dealer is shutting down");
  prune_locked();
  if (sessions_.size() >= config_.max_sessions)
    return "the dealer runs its maximum of " + std::to_string(config_.max_sessions) + " sessions";
  if (request.parties > config_.max_parties)
    return "at most " + std::to_string(config_.max_parties) + " parties per session on this dealer";
  if (auto why = over_cap_locked(owner)) return *why;
  std::string id = request.session_id;
  if (id.empty()) {
    do id = wire::random_session_id();
    while (sessions_.count(id) != 0 || store_.contains(id));
  } else if (sessions_.count(id) != 0 || store_.contains(id)) {
    // A finished session's record (and its signed proof) stays the only one under its id.
    return std::string("session id in use");
  }
  const uint32_t timeout_ms = request.round_timeout_ms == 0
                                  ? config_.default_round_timeout_ms
                                  : std::min(request.round_timeout_ms, config_.max_round_timeout_ms);
  mpc::SessionParams params{request.n, request.parties,
                            mpc::session_label(id, request.n, request.parties, request.label)};
  auto session = std::make_shared<AggregationSession>(ioc_, id, std::move(params), request.allowed_parties,
                                                      std::chrono::milliseconds(timeout_ms), env_, std::move(owner));
  sessions_[id] = session;
  session->start();
  return session;
}

std::shared_ptr<AggregationSession> SessionRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

std::vector<wire::SessionSummary> SessionRegistry::manage(const SessionOwner& owner, const std::vector<std::string>& cancel,
                                                     std::vector<std::string>& not_cancelled) {
  std::lock_guard lock(mutex_);
  prune_locked();
  std::vector<wire::SessionSummary> open;
  for (const auto& id : cancel) {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || !it->second->owner().same_as(owner)) {
      not_cancelled.push_back(id);  // not running, or not this owner's: no one learns which
      continue;
    }
    spdlog::info("session={} cancelled by its operator from {}", id, owner.address);
    it->second->shutdown("cancelled by its operator");
  }
  for (const auto& [id, session] : sessions_) {
    if (!session->owner().same_as(owner) || std::find(cancel.begin(), cancel.end(), id) != cancel.end()) continue;
    open.push_back(session->summary());
  }
  std::sort(open.begin(), open.end(), [](const auto& a, const auto& b) { return a.session_id < b.session_id; });
  return open;
}

void SessionRegistry::stop_accepting() {
  std::lock_guard lock(mutex_);
  accepting_ = false;
}

size_t SessionRegistry::running() {
  std::lock_guard lock(mutex_);
  prune_locked();
  return sessions_.size();
}

void SessionRegistry::shutdown_all(const std::string& reason) {
  std::lock_guard lock(mutex_);
  for (auto& [id, session] : sessions_) session->shutdown(reason);
}

}  // namespace bp::server
