#include "registry.hpp"

#include "log.hpp"

#include <algorithm>

#include "json_bodies.hpp"

namespace bp::server {

std::string owner_text(const SessionOwner& owner) {
  return owner.operator_key ? "key:" + wire::public_key_hex(*owner.operator_key) : "addr:" + owner.address;
}

SessionRegistry::SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env,
                                 RecordService& records)
    : ioc_(ioc), config_(config), env_(std::move(env)), records_(records) {}

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

void SessionRegistry::create(const wire::CreateSessionMsg& request, SessionOwner owner,
                             std::function<void(Created)> done) {
  std::string id = request.session_id;
  {
    std::lock_guard lock(mutex_);
    if (!accepting_) return done(std::string("the dealer is shutting down"));
    if (!records_.healthy())
      return done("the outcome record is unavailable (" + records_.failure() + "); no new sessions until it is back");
    prune_locked();
    if (sessions_.size() + claiming_.size() >= config_.max_sessions)
      return done("the dealer runs its maximum of " + std::to_string(config_.max_sessions) + " sessions");
    if (request.parties > config_.max_parties)
      return done("at most " + std::to_string(config_.max_parties) + " parties per session on this dealer");
    if (auto why = over_cap_locked(owner)) return done(*why);
    if (id.empty()) id = wire::random_session_id();  // 128 random bits: the claim settles the rest
    if (sessions_.count(id) != 0 || claiming_.count(id) != 0) return done(std::string("session id in use"));
    claiming_.insert(id);
  }
  // What the record keeps if this replica is lost before the session ends.
  const mpc::SessionParams params{request.n, request.parties,
                                  mpc::session_label(id, request.n, request.parties, request.label)};
  const std::string lost = outcome_json(SessionOutcome{
      id, params, false, "the dealer replica " + records_.replica() + " running the session stopped before it ended",
      {}, std::nullopt});
  // The per-owner cap again, over every replica sharing the record (the check above sees
  // only this one's sessions).
  const auto cap = static_cast<uint32_t>(owner.operator_key ? config_.max_sessions_per_operator
                                                            : config_.max_anonymous_sessions_per_ip);
  ClaimRequest claim{id, owner_text(owner), static_cast<uint32_t>(request.n), static_cast<uint32_t>(request.parties),
                     lost, cap};
  const bool queued = records_.claim(claim, [this, request, owner, id, params, done](StoreResult<ClaimOutcome> result) {
    claimed(request, owner, id, params, std::move(result), done);
  });
  if (!queued) {
    {
      std::lock_guard lock(mutex_);
      claiming_.erase(id);
    }
    env_.metrics->refused("store_busy");
    done(std::string("the outcome record is busy; try again shortly"));
  }
}

void SessionRegistry::claimed(const wire::CreateSessionMsg& request, SessionOwner owner, const std::string& id,
                              mpc::SessionParams params, StoreResult<ClaimOutcome> claim,
                              const std::function<void(Created)>& done) {
  std::unique_lock lock(mutex_);
  claiming_.erase(id);
  if (!claim) {
    lock.unlock();
    return done("the outcome record is unavailable (" + claim.error().reason + "); the session was not created");
  }
  // A finished session's record (and its signed proof) stays the only one under its id.
  if (*claim == ClaimOutcome::Taken) return done(std::string("session id in use"));
  if (*claim == ClaimOutcome::OwnerAtCap)
    return done(std::string(owner.operator_key ? "this operator" : "your address") +
                " has its limit of open sessions across the dealers sharing this record");
  if (!accepting_) {
    // Claimed, but never to run: close the claim with its abort, so the id does not linger.
    lock.unlock();
    records_.close(id, false,
                   outcome_json(SessionOutcome{id, params, false, "the dealer is shutting down", {}, std::nullopt}),
                   [](StoreResult<Ok>) {});
    return done(std::string("the dealer is shutting down"));
  }
  const uint32_t timeout_ms = request.round_timeout_ms == 0
                                  ? config_.default_round_timeout_ms
                                  : std::min(request.round_timeout_ms, config_.max_round_timeout_ms);
  auto session = std::make_shared<AggregationSession>(ioc_, id, std::move(params), request.allowed_parties,
                                                      std::chrono::milliseconds(timeout_ms), env_, std::move(owner));
  sessions_[id] = session;
  session->start();
  lock.unlock();
  done(session);
}

std::shared_ptr<AggregationSession> SessionRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

std::vector<wire::SessionSummary> SessionRegistry::local_summaries(const SessionOwner& owner,
                                                                   const std::vector<std::string>& skip) {
  std::lock_guard lock(mutex_);
  std::vector<wire::SessionSummary> open;
  for (const auto& [id, session] : sessions_) {
    if (session->finished() || !session->owner().same_as(owner) || std::find(skip.begin(), skip.end(), id) != skip.end()) continue;
    auto summary = session->summary();
    summary.replica = records_.replica();
    open.push_back(std::move(summary));
  }
  return open;
}

void SessionRegistry::manage(const SessionOwner& owner, std::vector<std::string> cancel,
                             std::function<void(std::variant<wire::SessionListMsg, std::string>)> done) {
  std::vector<std::string> elsewhere;        // not running here: maybe on another replica
  std::vector<std::string> cancelled_here;   // decided now: the session may be gone by the time the list is built
  {
    std::lock_guard lock(mutex_);
    for (const auto& id : cancel) {
      auto it = sessions_.find(id);
      if (it == sessions_.end() || it->second->finished()) {
        elsewhere.push_back(id);
        continue;
      }
      if (!it->second->owner().same_as(owner)) continue;  // not this owner's: reported below, no one learns whose
      log::info("session cancelled by its operator", {{"session", id}, {"remote", owner.address}});
      it->second->shutdown(AbortKind::Cancelled, "cancelled by its operator");
      cancelled_here.push_back(id);
    }
  }
  const std::string who = owner_text(owner);
  auto list = [this, owner, who, cancel, cancelled_here, done](std::vector<std::string> cancelled_elsewhere) {
    const bool queued = records_.open_sessions(who, [this, owner, cancel, cancelled_here, cancelled_elsewhere,
                                                     done](StoreResult<std::vector<OpenSessionRow>> rows) {
      if (!rows) return done("the outcome record is unavailable (" + rows.error().reason + ")");
      wire::SessionListMsg answer;
      answer.sessions = local_summaries(owner, cancel);
      for (const auto& row : *rows) {
        const bool here = std::any_of(answer.sessions.begin(), answer.sessions.end(),
                                      [&](const auto& s) { return s.session_id == row.id; });
        if (here || std::find(cancel.begin(), cancel.end(), row.id) != cancel.end()) continue;
        if (row.replica == records_.replica()) continue;  // ended here since the record was read
        answer.sessions.push_back({row.id, row.bits, row.parties, row.joined, row.phase, row.replica});
      }
      std::sort(answer.sessions.begin(), answer.sessions.end(),
                [](const auto& a, const auto& b) { return a.session_id < b.session_id; });
      if (answer.sessions.size() > wire::kMaxListedSessions) answer.sessions.resize(wire::kMaxListedSessions);
      // An id is cancelled if it was this owner's open session, here or (marked) elsewhere.
      for (const auto& id : cancel) {
        const bool here = std::find(cancelled_here.begin(), cancelled_here.end(), id) != cancelled_here.end();
        const bool there = std::find(cancelled_elsewhere.begin(), cancelled_elsewhere.end(), id) !=
                           cancelled_elsewhere.end();
        if (!here && !there) answer.not_cancelled.push_back(id);
      }
      done(std::move(answer));
    });
    if (!queued) done(std::string("the outcome record is busy; try again shortly"));
  };
  if (elsewhere.empty()) return list({});
  const bool queued = records_.request_cancel(who, elsewhere, [list, done](StoreResult<std::vector<std::string>> marked) {
    if (!marked) return done("the outcome record is unavailable (" + marked.error().reason + ")");
    list(std::move(*marked));
  });
  if (!queued) done(std::string("the outcome record is busy; try again shortly"));
}

void SessionRegistry::cancel_from_record(const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    if (auto session = find(id)) {
      log::info("session cancelled by its operator through another replica", {{"session", id}});
      session->shutdown(AbortKind::Cancelled, "cancelled by its operator");
    }
  }
}

void SessionRegistry::stop_accepting() {
  std::lock_guard lock(mutex_);
  accepting_ = false;
}

size_t SessionRegistry::running() {
  std::lock_guard lock(mutex_);
  const auto open = std::count_if(sessions_.begin(), sessions_.end(), [](const auto& s) { return !s.second->finished(); });
  return static_cast<size_t>(open) + claiming_.size();
}

void SessionRegistry::forget_finished() {
  std::lock_guard lock(mutex_);
  prune_locked();
}

void SessionRegistry::shutdown_all(const std::string& reason) {
  std::lock_guard lock(mutex_);
  for (auto& [id, session] : sessions_) session->shutdown(AbortKind::Shutdown, reason);
}

}  // namespace bp::server
