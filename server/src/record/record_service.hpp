// The dealer's side of the record: a few threads of its own, each with one backend
// connection, and a bounded queue in front of them. Sessions and connections hand it a call
// and a callback and go on; no session or I/O thread ever waits for the database. Every call
// has a deadline (queueing included) and ends in its callback, on a store thread, exactly once.
//
// Calls that admit new work (claims, reads, listings) are refused at once when the queue is
// full ("busy"); closing a session's record is always queued, ahead of them (there are at
// most --max-sessions of those). A heartbeat on its own timer keeps this replica's claims
// alive, publishes its sessions' phases, collects cancellations asked of it elsewhere, and is
// the health probe: the record is "down" from a failed call until a call succeeds again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../metrics.hpp"
#include "record_store.hpp"

namespace bp::server {

struct RecordServiceOptions {
  std::string replica;                   // this dealer's name in the record
  size_t threads = 1;                    // backend connections (1 for SQLite and memory)
  size_t queue = 256;                    // admitting calls that may wait; more are answered busy
  std::chrono::milliseconds timeout{5000};     // per call, from the moment it is handed in
  std::chrono::milliseconds heartbeat{2000};   // how often this replica says it is alive
  std::chrono::seconds replica_ttl{15};        // a replica silent this long has lost its sessions
  std::chrono::seconds retention{0};           // closed records older than this are pruned; 0 keeps
};

class RecordService {
 public:
  using Factory = std::function<std::unique_ptr<RecordStore>()>;

  // `factory` runs once on each store thread (so a connection lives on one thread).
  RecordService(Factory factory, RecordServiceOptions options, Metrics& metrics);
  ~RecordService();  // stop()
  // Ends the threads; calls still queued, and every later call, end at once with an error.
  // The dealer stops it before its io_context goes, since callbacks post onto it.
  void stop();
  RecordService(const RecordService&) = delete;
  RecordService& operator=(const RecordService&) = delete;

  // Admitting calls: false (and no callback) when the queue is full.
  bool claim(ClaimRequest request, std::function<void(StoreResult<ClaimOutcome>)> done);
  bool find(std::string id, std::function<void(StoreResult<std::optional<SessionRow>>)> done);
  bool open_sessions(std::string owner, std::function<void(StoreResult<std::vector<OpenSessionRow>>)> done);
  bool request_cancel(std::string owner, std::vector<std::string> ids,
                      std::function<void(StoreResult<std::vector<std::string>>)> done);
  // Always queued, ahead of the admitting calls.
  void close(std::string id, bool ok, std::string json, std::function<void(StoreResult<Ok>)> done);

  // A session whose outcome could not be recorded: its claim is closed with `json` (an abort
  // saying so) by the first heartbeat that finds the record answering again, so it does not
  // stay open in the record for as long as this replica lives.
  void close_when_back(std::string id, std::string json);
  // A running session's phase, published with the next heartbeat.
  void note_phase(const std::string& id, const std::string& phase, uint32_t joined);
  // Called on a store thread with the ids of this replica's sessions cancelled elsewhere.
  void on_cancel(std::function<void(std::vector<std::string>)> handler);

  bool healthy() const;
  std::string failure() const;  // why it is down (empty while healthy)
  const std::string& replica() const { return options_.replica; }
  size_t threads() const { return options_.threads; }

 private:
  struct Job {
    std::string operation;
    std::chrono::steady_clock::time_point deadline;
    std::function<void(RecordStore&)> run;        // runs the call and its callback
    std::function<void(StoreError)> expire;       // the callback, when the deadline passed first
  };
  template <class T>
  Job make_job(std::string operation, std::function<StoreResult<T>(RecordStore&)> call,
               std::function<void(StoreResult<T>)> done);
  bool push(Job job, bool priority);
  void worker();
  void ticker();
  void heartbeat_now();
  template <class T>
  void observe(const std::string& operation, std::chrono::steady_clock::time_point started, const StoreResult<T>& r);

  RecordServiceOptions options_;
  Metrics& metrics_;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable tick_;
  std::deque<Job> priority_, admitted_;
  bool stopping_ = false;
  bool healthy_ = true;
  std::string failure_;
  bool heartbeat_queued_ = false;
  std::unordered_map<std::string, PhaseUpdate> phases_;  // changed since the last heartbeat
  std::vector<std::pair<std::string, std::string>> unclosed_;  // (id, abort record) for close_when_back
  void close_unclosed(RecordStore& store);
  std::function<void(std::vector<std::string>)> on_cancel_;
  std::vector<std::thread> threads_;
};

}  // namespace bp::server
