#include "record/record_service.hpp"

#include "observability/log.hpp"

#include <algorithm>

namespace bp::server {

using Clock = std::chrono::steady_clock;

RecordService::RecordService(Factory factory, RecordServiceOptions options, Metrics& metrics)
    : options_(std::move(options)), metrics_(metrics), lease_renewed_(Clock::now()) {
  options_.threads = std::max<size_t>(1, options_.threads);
  // Made here, so a database that cannot be opened stops the dealer at start.
  std::vector<std::unique_ptr<RecordStore>> stores;
  for (size_t i = 0; i < options_.threads; ++i) stores.push_back(factory());
  for (auto& store : stores)
    threads_.emplace_back([this, store = std::shared_ptr<RecordStore>(std::move(store))] {
      auto own = store;
      while (true) {
        Job job;
        PendingWrites writes;
        {
          std::unique_lock lock(mutex_);
          work_ready_.wait(
              lock, [this] { return stopping_ || !priority_.empty() || writes_waiting() || !admitted_.empty(); });
          if (stopping_ && priority_.empty() && !writes_waiting() && admitted_.empty()) return;
          // Heartbeats and releases first, then the sessions' writes together, then the rest.
          if (priority_.empty() && writes_waiting()) {
            writes = take_writes();
          } else {
            auto& from = !priority_.empty() ? priority_ : admitted_;
            job = std::move(from.front());
            from.pop_front();
          }
        }
        if (!writes.empty()) {
          write_batch(*own, std::move(writes));
          continue;
        }
        if (Clock::now() >= job.deadline)
          job.expire(
              RecordError{"the record did not answer within " + std::to_string(options_.timeout.count()) + " ms"});
        else
          job.run(*own);
      }
    });
  threads_.emplace_back([this] { ticker(); });
}

RecordService::~RecordService() { stop(); }

void RecordService::stop() {
  std::deque<Job> unrun;
  PendingWrites unwritten;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    unrun = std::move(priority_);
    for (auto& job : admitted_) unrun.push_back(std::move(job));
    priority_.clear();
    admitted_.clear();
    while (writes_waiting()) {
      auto more = take_writes();
      for (auto& c : more.claims) unwritten.claims.push_back(std::move(c));
      for (auto& c : more.checkpoints) unwritten.checkpoints.push_back(std::move(c));
      for (auto& c : more.closes) unwritten.closes.push_back(std::move(c));
    }
  }
  // What nobody will run gets its answer now.
  const RecordError stopping{"the dealer is stopping"};
  for (auto& job : unrun) job.expire(stopping);
  for (auto& c : unwritten.claims) c.done(stopping);
  for (auto& c : unwritten.checkpoints) c.done(stopping);
  for (auto& c : unwritten.closes) c.done(stopping);
  work_ready_.notify_all();
  tick_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

template <class T>
void RecordService::observe(const std::string& operation, Clock::time_point started, const RecordResult<T>& r) {
  const bool down = !r && r.error().down();
  metrics_.record_call(operation, std::chrono::duration<double>(Clock::now() - started).count(), !down);
  // Said here, once per refused write, whatever its session has done since (one that moved
  // on meanwhile drops the answer): a replica that wrote after losing a session should show.
  if (!r && !down) {
    metrics_.record_fenced();
    log::warn("the record refused a write: another replica holds the session now",
              {{"operation", operation}, {"reason", r.error().reason}});
  }
  // A read that works says nothing of writes (a full disk still serves reads): only a write
  // that went through brings the record back.
  const bool wrote = operation != "find" && operation != "list";
  std::lock_guard lock(mutex_);
  if (down) {
    if (healthy_) log::error("the outcome record is failing", {{"reason", r.error().reason}});
    healthy_ = false;
    failure_ = r.error().reason;
  } else if (!healthy_ && wrote) {
    log::info("the outcome record answers again");
    healthy_ = true;
    failure_.clear();
  }
  metrics_.record_up(healthy_);
}

template <class T>
RecordService::Job RecordService::make_job(std::string operation, std::function<RecordResult<T>(RecordStore&)> call,
                                           std::function<void(RecordResult<T>)> done) {
  const auto started = Clock::now();
  auto shared_done = std::make_shared<std::function<void(RecordResult<T>)>>(std::move(done));
  Job job;
  job.operation = operation;
  job.deadline = started + options_.timeout;
  job.run = [this, operation, started, call = std::move(call), shared_done](RecordStore& store) {
    auto result = call(store);
    observe(operation, started, result);
    (*shared_done)(std::move(result));
  };
  job.expire = [this, operation, started, shared_done](RecordError e) {
    RecordResult<T> result(std::move(e));
    observe(operation, started, result);
    (*shared_done)(std::move(result));
  };
  return job;
}

bool RecordService::push(Job job, bool priority) {
  {
    std::unique_lock lock(mutex_);
    if (stopping_) {
      lock.unlock();
      job.expire(RecordError{"the dealer is stopping"});
      return true;
    }
    if (!priority && admitted_.size() >= options_.queue) return false;
    (priority ? priority_ : admitted_).push_back(std::move(job));
  }
  work_ready_.notify_one();
  return true;
}

bool RecordService::claim(ClaimRequest request, std::function<void(RecordResult<ClaimOutcome>)> done) {
  {
    std::unique_lock lock(mutex_);
    if (!stopping_) {
      if (admitted_.size() + claims_.size() >= options_.queue) return false;
      claims_.push_back({std::move(request), Clock::now(), std::move(done)});
      lock.unlock();
      work_ready_.notify_one();
      return true;
    }
  }
  done(RecordError{"the dealer is stopping"});
  return true;
}

bool RecordService::take_over(std::string id, std::function<void(RecordResult<Takeover>)> done) {
  const auto silent_for = options_.takeover_after;
  return push(make_job<Takeover>(
                  "takeover", [id = std::move(id), silent_for](RecordStore& s) { return s.take_over(id, silent_for); },
                  std::move(done)),
              false);
}

bool RecordService::request_release(std::string id, std::function<void(RecordResult<Ok>)> done) {
  return push(make_job<Ok>(
                  "ask", [id = std::move(id)](RecordStore& s) { return s.request_release(id); }, std::move(done)),
              false);
}

bool RecordService::find(std::string id, std::function<void(RecordResult<std::optional<SessionRow>>)> done) {
  return push(make_job<std::optional<SessionRow>>(
                  "find", [id = std::move(id)](RecordStore& s) { return s.find(id); }, std::move(done)),
              false);
}

bool RecordService::open_sessions(std::string owner,
                                  std::function<void(RecordResult<std::vector<OpenSessionRow>>)> done) {
  return push(
      make_job<std::vector<OpenSessionRow>>(
          "list", [owner = std::move(owner)](RecordStore& s) { return s.open_sessions(owner); }, std::move(done)),
      false);
}

bool RecordService::request_cancel(std::string owner, std::vector<std::string> ids,
                                   std::function<void(RecordResult<std::vector<std::string>>)> done) {
  return push(
      make_job<std::vector<std::string>>(
          "cancel",
          [owner = std::move(owner), ids = std::move(ids)](RecordStore& s) { return s.request_cancel(owner, ids); },
          std::move(done)),
      false);
}

void RecordService::checkpoint(Checkpoint checkpoint, std::function<void(RecordResult<Ok>)> done) {
  {
    std::unique_lock lock(mutex_);
    if (!stopping_) {
      checkpoints_.push_back({std::move(checkpoint), Clock::now(), std::move(done)});
      lock.unlock();
      work_ready_.notify_one();
      return;
    }
  }
  done(RecordError{"the dealer is stopping"});
}

RecordService::PendingWrites RecordService::take_writes() {
  PendingWrites out;
  const auto take = [](auto& queue, auto& into) {
    while (!queue.empty() && into.size() < kWriteBatch) {
      into.push_back(std::move(queue.front()));
      queue.pop_front();
    }
  };
  take(claims_, out.claims);
  take(checkpoints_, out.checkpoints);
  take(closes_, out.closes);
  return out;
}

namespace {

// Answers the writes whose deadline has passed, and returns the others' requests.
template <class Pending, class Observe>
auto due_requests(std::vector<Pending>& pending, std::chrono::milliseconds timeout, const char* operation,
                  Observe&& observe) {
  std::vector<std::decay_t<decltype(pending.front().request)>> requests;
  std::vector<Pending> due;
  for (auto& p : pending) {
    if (Clock::now() - p.started >= timeout) {
      auto done = std::move(p.done);
      auto late = RecordError{"the record did not answer within " + std::to_string(timeout.count()) + " ms"};
      observe(operation, p.started, late);
      done(std::move(late));
      continue;
    }
    requests.push_back(p.request);
    due.push_back(std::move(p));
  }
  pending = std::move(due);
  return requests;
}

}  // namespace

void RecordService::write_batch(RecordStore& store, PendingWrites pending) {
  const auto observe_error = [this](const char* operation, Clock::time_point started, const RecordError& e) {
    observe(operation, started, RecordResult<Ok>(e));
  };
  WriteBatch batch;
  batch.claims = due_requests(pending.claims, options_.timeout, "claim", observe_error);
  batch.checkpoints = due_requests(pending.checkpoints, options_.timeout, "checkpoint", observe_error);
  batch.closes = due_requests(pending.closes, options_.timeout, "close", observe_error);
  if (batch.size() == 0) return;
  auto answers = store.write_batch(batch);
  const auto answer_all = [&](auto& waiting, auto* answered, const char* operation) {
    for (size_t i = 0; i < waiting.size(); ++i) {
      auto answer = answers ? std::move((*answered)[i]) : std::decay_t<decltype((*answered)[i])>(answers.error());
      observe(operation, waiting[i].started, answer);
      waiting[i].done(std::move(answer));
    }
  };
  answer_all(pending.claims, answers ? &answers->claims : nullptr, "claim");
  answer_all(pending.checkpoints, answers ? &answers->checkpoints : nullptr, "checkpoint");
  answer_all(pending.closes, answers ? &answers->closes : nullptr, "close");
}

void RecordService::close(std::string id, uint64_t epoch, bool ok, std::string json,
                          std::function<void(RecordResult<Ok>)> done) {
  {
    std::unique_lock lock(mutex_);
    if (!stopping_) {
      closes_.push_back({CloseRequest{std::move(id), epoch, ok, std::move(json)}, Clock::now(), std::move(done)});
      lock.unlock();
      work_ready_.notify_one();
      return;
    }
  }
  done(RecordError{"the dealer is stopping"});
}

void RecordService::release(std::string id, uint64_t epoch, std::function<void(RecordResult<Ok>)> done) {
  push(make_job<Ok>(
           "release", [id = std::move(id), epoch](RecordStore& s) { return s.release(id, epoch); }, std::move(done)),
       true);
}

void RecordService::on_heartbeat(std::function<void(HeartbeatNews)> handler) {
  std::lock_guard lock(mutex_);
  on_heartbeat_ = std::move(handler);
}

void RecordService::on_lease_lost(std::function<void()> handler) {
  std::lock_guard lock(mutex_);
  on_lease_lost_ = std::move(handler);
}

bool RecordService::healthy() const {
  std::lock_guard lock(mutex_);
  return healthy_;
}

std::string RecordService::failure() const {
  std::lock_guard lock(mutex_);
  return failure_;
}

void RecordService::heartbeat_now() {
  bool after_failure;
  {
    std::lock_guard lock(mutex_);
    if (heartbeat_queued_) return;  // a slow store gets one beat in its queue, not a pile
    heartbeat_queued_ = true;
    after_failure = !healthy_;
  }
  const auto ttl = options_.replica_ttl;
  const auto started = Clock::now();
  push(make_job<HeartbeatAnswer>(
           "heartbeat", [ttl, after_failure](RecordStore& s) { return s.heartbeat(ttl, after_failure); },
           [this, started](RecordResult<HeartbeatAnswer> answer) {
             std::function<void(HeartbeatNews)> handler;
             {
               std::lock_guard lock(mutex_);
               heartbeat_queued_ = false;
               if (!answer) return;
               // The record saw us alive no earlier than the moment the beat was handed in.
               if (started > lease_renewed_) lease_renewed_ = started;
               lease_lost_ = false;
               handler = on_heartbeat_;
             }
             if (answer->expired_elsewhere != 0)
               log::warn("closed open sessions nobody ran",
                         {{"count", answer->expired_elsewhere}, {"silent_s", options_.replica_ttl.count()}});
             if (handler) handler(HeartbeatNews{std::move(*answer), started});
           }),
       true);
}

// Another replica may take our sessions once the record has not heard from us for
// takeover_after; stop them a heartbeat before that, so two replicas never both think they
// run one (the epochs would refuse the stale one's writes anyway: this is for its parties,
// who should go where the session will be).
void RecordService::check_lease() {
  std::function<void()> handler;
  {
    std::lock_guard lock(mutex_);
    const auto lease = options_.takeover_after > options_.heartbeat ? options_.takeover_after - options_.heartbeat
                                                                    : options_.takeover_after / 2;
    if (lease_lost_ || Clock::now() - lease_renewed_ < lease) return;
    lease_lost_ = true;
    handler = on_lease_lost_;
  }
  log::error("no heartbeat reached the record for the lease's length: this replica's sessions may be taken over",
             {{"lease_ms", options_.takeover_after.count()}});
  if (handler) handler();
}

void RecordService::ticker() {
  auto next_prune = Clock::now();
  const auto prune_every = std::chrono::seconds(std::clamp<int64_t>(options_.retention.count() / 4, 1, 600));
  heartbeat_now();  // this replica is in the record before its first session
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    // A failing record is probed every second, so readiness comes back soon after it does.
    const auto every = healthy_ ? options_.heartbeat : std::min(options_.heartbeat, std::chrono::milliseconds(1000));
    tick_.wait_for(lock, every, [this] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    check_lease();
    heartbeat_now();
    if (options_.retention.count() != 0 && Clock::now() >= next_prune) {
      next_prune = Clock::now() + prune_every;
      const auto retention = options_.retention;
      push(make_job<size_t>(
               "prune", [retention](RecordStore& s) { return s.prune(retention); },
               [retention](RecordResult<size_t> gone) {
                 if (gone && *gone != 0)
                   log::info("deleted old outcome records", {{"count", *gone}, {"retention_s", retention.count()}});
                 if (!gone) log::error("pruning old outcome records failed", {{"reason", gone.error().reason}});
               }),
           false);
    }
    lock.lock();
  }
}

}  // namespace bp::server
