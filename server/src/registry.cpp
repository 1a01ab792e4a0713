#include "registry.hpp"

namespace bp::server {

SessionRegistry::SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env)
    : ioc_(ioc), config_(config), env_(std::move(env)) {}

void SessionRegistry::prune_locked() {
  for (auto it = sessions_.begin(); it != sessions_.end();) it = it->second->finished() ? sessions_.erase(it) : std::next(it);
}

std::variant<std::shared_ptr<AggregationSession>, std::string> SessionRegistry::create(
    const wire::CreateSessionMsg& request) {
  std::lock_guard lock(mutex_);
  if (!accepting_) return std::string("the dealer is shutting down");
  prune_locked();
  if (sessions_.size() >= config_.max_sessions)
    return "the dealer runs its maximum of " + std::to_string(config_.max_sessions) + " sessions";
  if (request.parties > config_.max_parties)
    return "at most " + std::to_string(config_.max_parties) + " parties per session on this dealer";
  const std::string id = request.session_id.empty() ? wire::random_session_id() : request.session_id;
  if (sessions_.count(id) != 0) {
    return std::string("session id in use");
  }
  const uint32_t timeout_ms = request.round_timeout_ms == 0
                                  ? config_.default_round_timeout_ms
                                  : std::min(request.round_timeout_ms, config_.max_round_timeout_ms);
  mpc::SessionParams params{request.n, request.parties,
                            mpc::session_label(id, request.n, request.parties, request.label)};
  auto session = std::make_shared<AggregationSession>(ioc_, id, std::move(params), request.allowed_parties,
                                                      std::chrono::milliseconds(timeout_ms), env_);
  sessions_[id] = session;
  session->start();
  return session;
}

std::shared_ptr<AggregationSession> SessionRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
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
