#include "session/registry.hpp"

#include <algorithm>

#include "session/outcome_json.hpp"
#include "session/refusals.hpp"
#include "observability/log.hpp"

namespace bp::server {

using Clock = std::chrono::steady_clock;

namespace {
// How long a party waits before it asks again when the record or the session's holder is
// what it waits for.
constexpr uint32_t kAskAgainMs = 1000;
}  // namespace

std::string owner_text(const SessionOwner& owner) {
  return owner.operator_key ? "key:" + wire::public_key_hex(*owner.operator_key) : "addr:" + owner.address;
}

SessionRegistry::SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env,
                                 RecordService& records)
    : ioc_(ioc), config_(config), env_(std::move(env)), records_(records), limits_(SessionLimits::of(config)) {
  env_.start_successor = [this](SessionTerms terms, wire::DealerCheckpoint checkpoint, std::function<void(bool)> done) {
    start_successor(std::move(terms), std::move(checkpoint), std::move(done));
  };
}

std::string SessionRegistry::lost_outcome(const SessionTerms& terms) const {
  return outcome_json(SessionOutcome{
      terms.id,
      terms.params,
      false,
      "the dealer replica " + records_.replica() + " running the session stopped, and no replica resumed it",
      {},
      std::nullopt,
      terms.seat_shapes().size()});
}

void SessionRegistry::prune_locked() {
  for (auto it = sessions_.begin(); it != sessions_.end();)
    it = it->second.session->finished() ? sessions_.erase(it) : std::next(it);
}

std::optional<std::string> SessionRegistry::over_cap_locked(const SessionOwner& owner) const {
  size_t same_owner = 0, same_address = 0;
  for (const auto& [id, entry] : sessions_) {
    if (entry.session->finished()) continue;
    same_owner += entry.session->owner().same_as(owner);
    same_address += entry.session->owner().address == owner.address;
  }
  if (owner.operator_key && same_owner >= limits_.max_sessions_per_operator)
    return "this operator has " + std::to_string(same_owner) + " open sessions, its limit";
  if (!owner.operator_key && same_owner >= limits_.max_anonymous_sessions_per_ip)
    return "your address has " + std::to_string(same_owner) + " open unsigned sessions, its limit";
  if (same_address >= limits_.max_sessions_per_ip)
    return "your address has " + std::to_string(same_address) + " open sessions, its limit";
  return std::nullopt;
}

void SessionRegistry::create(const wire::CreateSessionMsg& request, SessionOwner owner,
                             std::function<void(Created)> done) {
  std::string id = request.session_id;
  const size_t max_positions = std::min(config_.max_positions, mpc::kMaxPositions);
  // A gadget session has one position per seat; a range session as its values and bounds say.
  std::optional<GadgetList> gadgets;
  Result<size_t, std::string> positions = std::string();
  if (!request.gadgets.empty()) {
    auto list = gadgets_of(request.gadgets, request.parties, max_positions);
    if (list) {
      positions = list->items().size();
      gadgets = std::move(*list);
    } else {
      positions = list.error();
    }
  } else {
    positions = positions_of(request.bits, request.parties, request.values_per_party, request.bounds, max_positions);
  }
  SessionLimits limits;
  {
    std::lock_guard lock(mutex_);
    limits = limits_;
    if (!accepting_) return done(std::string(refusal::kShuttingDown));
    if (!records_.healthy()) return done(refusal::no_new_sessions(records_.failure()));
    prune_locked();
    if (sessions_.size() + claiming_.size() + taking_.size() >= limits_.max_sessions)
      return done(CreateRefusal{"the dealer runs its maximum of " + std::to_string(limits_.max_sessions) + " sessions",
                                wire::RefusalKind::OverLimit});
    if (request.parties > limits_.max_parties)
      return done(
          CreateRefusal{"at most " + std::to_string(limits_.max_parties) + " parties per session on this dealer",
                        wire::RefusalKind::OverLimit});
    if (!positions) return done(positions.error());
    if (auto why = over_cap_locked(owner)) return done(CreateRefusal{*why, wire::RefusalKind::OverLimit});
    if (id.empty()) id = wire::random_session_id();  // 128 random bits: the claim settles the rest
    if (sessions_.count(id) != 0 || claiming_.count(id) != 0 || taking_.count(id) != 0)
      return done(std::string(refusal::kIdInUse));
    claiming_.insert(id);
  }
  const uint32_t timeout_ms = request.round_timeout_ms == 0
                                  ? limits.default_round_timeout_ms
                                  : std::min(request.round_timeout_ms, limits.max_round_timeout_ms);
  auto label = gadgets ? mpc::gadget_session_label(id, gadgets->text(), request.label)
                       : mpc::session_transcript_label(id, request.bits, *positions, request.label, request.bounds);
  // Every decoder of a label (Joined, the result, checkpoints) takes this many bytes: a session
  // whose label is longer would be recorded and then refused by every party.
  if (label.size() > wire::kMaxTranscriptLabelBytes) {
    std::lock_guard lock(mutex_);
    claiming_.erase(id);
    return done("the session's transcript label would take " + std::to_string(label.size()) + " bytes; at most " +
                std::to_string(wire::kMaxTranscriptLabelBytes));
  }
  SessionTerms terms{id,
                     mpc::SessionParams{request.bits, *positions, std::move(label)},
                     request.allowed_parties,
                     std::chrono::milliseconds(timeout_ms),
                     owner,
                     request.values_per_party,
                     request.bounds,
                     std::move(gadgets)};
  // A quorum of every party is today's session (all or nothing, seated as they come).
  if (request.min_parties != 0 && request.min_parties < request.parties) {
    terms.min_parties = request.min_parties;
    terms.gadget_successors = request.gadget_successors;
    terms.join_window = std::chrono::milliseconds(
        request.join_window_ms == 0 ? timeout_ms : std::min(request.join_window_ms, limits.max_round_timeout_ms));
  }
  auto checkpoint = first_checkpoint(terms);
  // What the record keeps if no replica finishes the session.
  const std::string lost = lost_outcome(terms);
  // The per-owner cap again, over every replica sharing the record (the check above sees
  // only this one's sessions).
  const auto cap = static_cast<uint32_t>(owner.operator_key ? limits.max_sessions_per_operator
                                                            : limits.max_anonymous_sessions_per_ip);
  ClaimRequest claim{id,
                     owner_text(owner),
                     static_cast<uint32_t>(request.bits),
                     static_cast<uint32_t>(request.parties),
                     lost,
                     cap,
                     wire::encode_checkpoint(checkpoint)};
  const bool queued =
      records_.claim(claim, [this, id, terms, checkpoint, done](RecordResult<ClaimOutcome> result) mutable {
        claimed(id, std::move(terms), std::move(checkpoint), std::move(result), done);
      });
  if (!queued) {
    {
      std::lock_guard lock(mutex_);
      claiming_.erase(id);
    }
    env_.metrics->refused("record_busy");
    done(std::string(refusal::kRecordBusy));
  }
}

void SessionRegistry::claimed(const std::string& id, SessionTerms terms, wire::DealerCheckpoint checkpoint,
                              RecordResult<ClaimOutcome> claim, const std::function<void(Created)>& done) {
  std::unique_lock lock(mutex_);
  claiming_.erase(id);
  if (!claim) {
    lock.unlock();
    return done(refusal::record_unavailable(claim.error().reason) + "; the session was not created");
  }
  // A finished session's record (and its signed proof) stays the only one under its id.
  if (*claim == ClaimOutcome::Taken) return done(std::string(refusal::kIdInUse));
  if (*claim == ClaimOutcome::OwnerAtCap)
    return done(CreateRefusal{std::string(terms.owner.operator_key ? "this operator" : "your address") +
                                  " has its limit of open sessions across the dealers sharing this record",
                              wire::RefusalKind::OverLimit});
  if (!accepting_) {
    // Claimed, but never to run: close the claim with its abort, so the id does not linger.
    lock.unlock();
    records_.close(id, kFirstEpoch, false,
                   outcome_json(SessionOutcome{
                       id, terms.params, false, refusal::kShuttingDown, {}, std::nullopt, terms.seat_shapes().size()}),
                   [](RecordResult<Ok>) {});
    return done(std::string(refusal::kShuttingDown));
  }
  auto session = std::make_shared<AggregationSession>(ioc_, std::move(terms), std::move(checkpoint), kFirstEpoch, env_);
  sessions_[id] = Entry{session, Clock::now()};
  session->start();
  lock.unlock();
  done(session);
}

std::shared_ptr<AggregationSession> SessionRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() || it->second.session->finished() ? nullptr : it->second.session;
}

void SessionRegistry::find_or_take_over(const std::string& id, std::optional<wire::PublicKey> party_key,
                                        std::function<void(Found)> done) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = sessions_.find(id); it != sessions_.end()) {
      if (!it->second.session->finished()) {
        auto session = it->second.session;
        return done(session);
      }
      sessions_.erase(it);  // ended or moved on: the record says what now
    }
    if (!accepting_) return done(Refusal{"this dealer replica is shutting down", kReconnectAfterMs, std::nullopt});
    if (claiming_.count(id) != 0) return done(Refusal{"the session is being created", kAskAgainMs, std::nullopt});
    if (auto waiting = taking_.find(id); waiting != taking_.end()) {
      waiting->second.push_back({party_key, std::move(done)});
      return;
    }
    if (!records_.healthy())
      return done(Refusal{refusal::record_unavailable(records_.failure()), kAskAgainMs, std::nullopt});
    if (sessions_.size() + claiming_.size() + taking_.size() >= limits_.max_sessions)
      return done(Refusal{"the dealer runs its maximum of " + std::to_string(limits_.max_sessions) + " sessions",
                          kAskAgainMs, std::nullopt, wire::RefusalKind::OverLimit});
    prune_locked();
    taking_[id].push_back({party_key, std::move(done)});
  }
  const bool queued =
      records_.take_over(id, [this, id](RecordResult<Takeover> takeover) { taken_over(id, std::move(takeover)); });
  if (!queued) {
    env_.metrics->refused("record_busy");
    answer_takers(id, Refusal{refusal::kRecordBusy, kAskAgainMs, std::nullopt});
  }
}

void SessionRegistry::taken_over(const std::string& id, RecordResult<Takeover> takeover) {
  if (!takeover)
    return answer_takers(id, Refusal{refusal::record_unavailable(takeover.error().reason), kAskAgainMs, std::nullopt});
  switch (takeover->kind) {
    case Takeover::Kind::Unknown:
      return answer_takers(id, Refusal{refusal::kNoSuchSession, 0, std::nullopt, wire::RefusalKind::NoSuchSession});
    case Takeover::Kind::Ended: return answer_takers(id, Refusal{refusal::kSessionEnded, 0, takeover->outcome_json});
    case Takeover::Kind::Held: return held_elsewhere(id, *takeover);
    case Takeover::Kind::Taken: break;
  }
  auto checkpoint = wire::decode_checkpoint(takeover->checkpoint);
  auto terms = checkpoint ? terms_of(id, *checkpoint) : std::nullopt;
  if (!terms) {
    // Ours now, and beyond repair: it ends here, with the reason in the record.
    const std::string why =
        "the session's checkpoint in the record is damaged" +
        (checkpoint ? std::string(" (it names another session)") : " (" + wire::describe(checkpoint.error()) + ")");
    log::error("session cannot be taken over", {{"session", id}, {"reason", why}});
    records_.close(id, takeover->epoch, false, outcome_json(SessionOutcome{id, {}, false, why, {}, std::nullopt}),
                   [](RecordResult<Ok>) {});
    return answer_takers(id, Refusal{why, 0, std::nullopt});
  }
  auto session =
      std::make_shared<AggregationSession>(ioc_, std::move(*terms), std::move(*checkpoint), takeover->epoch, env_);
  {
    std::lock_guard lock(mutex_);
    sessions_[id] = Entry{session, Clock::now()};
  }
  session->start();
  answer_takers(id, session);
}

// Its holder runs it: ask for it, if one of the waiting parties is one the session admits
// (so a stranger who learnt an id cannot make a session move), and tell them to come back.
void SessionRegistry::held_elsewhere(const std::string& id, const Takeover& held) {
  bool admitted = false;
  if (auto checkpoint = wire::decode_checkpoint(held.checkpoint)) {
    std::lock_guard lock(mutex_);
    for (const auto& taker : taking_[id]) {
      const auto& allowed = checkpoint->allowed_parties;
      admitted |= allowed.empty() ||
                  (taker.party_key && std::find(allowed.begin(), allowed.end(), *taker.party_key) != allowed.end());
    }
  }
  if (!admitted) return answer_takers(id, Refusal{"session " + id + " runs on dealer replica " + held.holder, 0, {}});
  records_.request_release(id, [](RecordResult<Ok>) {});
  answer_takers(
      id, Refusal{"session " + id + " is held by dealer replica " + held.holder + ", which was asked to hand it over",
                  kAskAgainMs, std::nullopt});
}

void SessionRegistry::answer_takers(const std::string& id, const Found& found) {
  std::vector<Taker> waiting;
  {
    std::lock_guard lock(mutex_);
    auto it = taking_.find(id);
    if (it == taking_.end()) return;
    waiting = std::move(it->second);
    taking_.erase(it);
  }
  for (auto& taker : waiting) taker.done(found);
}

std::vector<wire::SessionSummary> SessionRegistry::local_summaries(const SessionOwner& owner,
                                                                   const std::vector<std::string>& skip) {
  std::lock_guard lock(mutex_);
  std::vector<wire::SessionSummary> open;
  for (const auto& [id, entry] : sessions_) {
    const auto& session = entry.session;
    if (session->finished() || !session->owner().same_as(owner) ||
        std::find(skip.begin(), skip.end(), id) != skip.end())
      continue;
    auto summary = session->summary();
    summary.replica = records_.replica();
    open.push_back(std::move(summary));
  }
  return open;
}

void SessionRegistry::manage(const SessionOwner& owner, std::vector<std::string> cancel,
                             std::function<void(std::variant<wire::SessionListMsg, std::string>)> done) {
  std::vector<std::string> elsewhere;       // not running here: maybe on another replica
  std::vector<std::string> cancelled_here;  // decided now: the session may be gone by the time the list is built
  {
    std::lock_guard lock(mutex_);
    for (const auto& id : cancel) {
      auto it = sessions_.find(id);
      if (it == sessions_.end() || it->second.session->finished()) {
        elsewhere.push_back(id);
        continue;
      }
      if (!it->second.session->owner().same_as(owner))
        continue;  // not this owner's: reported below, no one learns whose
      log::info("session cancelled by its operator", {{"session", id}, {"remote", owner.address}});
      it->second.session->shutdown(AbortKind::Cancelled, "cancelled by its operator");
      cancelled_here.push_back(id);
    }
  }
  const std::string who = owner_text(owner);
  auto list = [this, owner, who, cancel, cancelled_here, done](std::vector<std::string> cancelled_elsewhere) {
    const bool queued = records_.open_sessions(who, [this, owner, cancel, cancelled_here, cancelled_elsewhere,
                                                     done](RecordResult<std::vector<OpenSessionRow>> rows) {
      if (!rows) return done(refusal::record_unavailable(rows.error().reason));
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
        const bool there =
            std::find(cancelled_elsewhere.begin(), cancelled_elsewhere.end(), id) != cancelled_elsewhere.end();
        if (!here && !there) answer.not_cancelled.push_back(id);
      }
      done(std::move(answer));
    });
    if (!queued) done(std::string(refusal::kRecordBusy));
  };
  if (elsewhere.empty()) return list({});
  const bool queued =
      records_.request_cancel(who, elsewhere, [list, done](RecordResult<std::vector<std::string>> marked) {
        if (!marked) return done(refusal::record_unavailable(marked.error().reason));
        list(std::move(*marked));
      });
  if (!queued) done(std::string(refusal::kRecordBusy));
}

void SessionRegistry::heartbeat(const HeartbeatNews& news) {
  const HeartbeatAnswer& a = news.answer;
  std::map<std::string, uint64_t> held;
  for (const auto& h : a.held) held[h.id] = h.epoch;
  std::vector<HeldSession> orphans;
  {
    std::lock_guard lock(mutex_);
    for (const auto& id : a.cancel) {
      if (auto it = sessions_.find(id); it != sessions_.end()) {
        log::info("session cancelled by its operator through another replica", {{"session", id}});
        it->second.session->shutdown(AbortKind::Cancelled, "cancelled by its operator");
      }
    }
    for (const auto& id : a.release) {
      auto it = sessions_.find(id);
      if (it == sessions_.end() || it->second.session->finished()) continue;  // released below, if ours
      log::info("another replica asked for this session: handing it over", {{"session", id}});
      it->second.session->hand_over("another dealer replica serves this session now");
    }
    // Running here, but the record gives it to another replica (taken over while this one
    // was paused or cut off): stop it. Only sessions that ran here before the beat began:
    // a takeover of our own since then is not in what the beat read.
    for (const auto& [id, entry] : sessions_) {
      if (entry.session->finished() || entry.since >= news.started) continue;
      const auto it = held.find(id);
      if (it == held.end() || it->second != entry.session->epoch())
        entry.session->lost("the record gives this session to another replica now");
    }
    // Ours in the record, but not running here (stopped when the lease ran out, or handed
    // over when the record could not take the release): released, so a party's next join
    // takes it over at once wherever it lands.
    for (const auto& [id, epoch] : held) {
      auto it = sessions_.find(id);
      const bool running = it != sessions_.end() && !it->second.session->finished();
      if (!running && claiming_.count(id) == 0 && taking_.count(id) == 0) orphans.push_back({id, epoch});
    }
  }
  for (const auto& orphan : orphans) {
    records_.release(orphan.id, orphan.epoch, [id = orphan.id](RecordResult<Ok> released) {
      if (released) log::info("released a session this replica no longer runs", {{"session", id}});
    });
  }
}

void SessionRegistry::lease_lost() {
  std::lock_guard lock(mutex_);
  for (auto& [id, entry] : sessions_)
    entry.session->lost("this dealer replica has lost touch with the record, and another may take the session over");
}

void SessionRegistry::stop_accepting() {
  std::lock_guard lock(mutex_);
  accepting_ = false;
}

size_t SessionRegistry::running() {
  std::lock_guard lock(mutex_);
  const auto open =
      std::count_if(sessions_.begin(), sessions_.end(), [](const auto& s) { return !s.second.session->finished(); });
  return static_cast<size_t>(open) + claiming_.size() + taking_.size();
}

void SessionRegistry::forget_finished() {
  std::lock_guard lock(mutex_);
  prune_locked();
}

void SessionRegistry::shutdown_all(const std::string& reason) {
  std::lock_guard lock(mutex_);
  for (auto& [id, entry] : sessions_) entry.session->shutdown(AbortKind::Shutdown, reason);
}

void SessionRegistry::hand_over_all(const std::string& reason) {
  std::lock_guard lock(mutex_);
  for (auto& [id, entry] : sessions_) entry.session->hand_over(reason);
}

}  // namespace bp::server
