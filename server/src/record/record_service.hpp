// The dealer's side of the record: a few threads of its own, each with one backend
// connection, and a bounded queue in front of them. Sessions and connections hand it a call
// and a callback and go on; no session or I/O thread ever waits for the database. Every call
// has a deadline (queueing included) and ends in its callback, on a store thread, exactly once.
//
// Calls that admit new work (claims, takeovers, reads) are refused at once when the queue is
// full ("busy"); the writes of running sessions (checkpoints, outcomes, releases) are always
// queued, ahead of them (there are at most --max-sessions of those in flight). A heartbeat on
// its own timer keeps this replica's lease in the record and collects what was asked of it
// elsewhere; it is also the health probe: the record is "down" from a failed call until a
// write succeeds again. A replica whose heartbeat has not gone through for the lease's
// length must assume another replica may take its sessions over: it is told so once
// (on_lease_lost), and its sessions stop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "observability/metrics.hpp"
#include "record/record_store.hpp"

namespace bp::server {

struct RecordServiceOptions {
  std::string replica;                             // this dealer's name in the record
  size_t threads = 1;                              // backend connections (1 for SQLite)
  size_t queue = 256;                              // admitting calls that may wait; more are answered busy
  std::chrono::milliseconds timeout{5000};         // per call, from the moment it is handed in
  std::chrono::milliseconds heartbeat{2000};       // how often this replica says it is alive
  std::chrono::milliseconds takeover_after{6000};  // silent this long, a replica's sessions may be taken over
  std::chrono::seconds replica_ttl{60};            // a session nobody runs this long is closed as aborted
  std::chrono::seconds retention{0};               // closed records older than this are pruned; 0 keeps
};

// What the registry hears from each heartbeat that went through.
struct HeartbeatNews {
  HeartbeatAnswer answer;
  std::chrono::steady_clock::time_point started;  // when the beat was handed in
};

class RecordService {
 public:
  using Factory = std::function<std::unique_ptr<RecordStore>()>;

  // `factory` runs once for each store thread (so a connection lives on one thread).
  RecordService(Factory factory, RecordServiceOptions options, Metrics& metrics);
  ~RecordService();  // stop()
  // Ends the threads; calls still queued, and every later call, end at once with an error.
  // The dealer stops it before its io_context goes, since callbacks post onto it.
  void stop();
  RecordService(const RecordService&) = delete;
  RecordService& operator=(const RecordService&) = delete;

  // Admitting calls: false (and no callback) when the queue is full.
  bool claim(ClaimRequest request, std::function<void(RecordResult<ClaimOutcome>)> done);
  bool take_over(std::string id, std::function<void(RecordResult<Takeover>)> done);
  bool request_release(std::string id, std::function<void(RecordResult<Ok>)> done);
  bool find(std::string id, std::function<void(RecordResult<std::optional<SessionRow>>)> done);
  bool open_sessions(std::string owner, std::function<void(RecordResult<std::vector<OpenSessionRow>>)> done);
  bool request_cancel(std::string owner, std::vector<std::string> ids,
                      std::function<void(RecordResult<std::vector<std::string>>)> done);
  // A running session's writes: always queued, ahead of the admitting calls.
  void checkpoint(Checkpoint checkpoint, std::function<void(RecordResult<Ok>)> done);
  void close(std::string id, uint64_t epoch, bool ok, std::string json, std::function<void(RecordResult<Ok>)> done);
  void release(std::string id, uint64_t epoch, std::function<void(RecordResult<Ok>)> done);

  // Called on a store thread after each heartbeat that went through.
  void on_heartbeat(std::function<void(HeartbeatNews)> handler);
  // Called on the ticker's thread once the lease has run out (and again after each renewal
  // that is lost again).
  void on_lease_lost(std::function<void()> handler);

  bool healthy() const;
  std::string failure() const;  // why it is down (empty while healthy)
  const std::string& replica() const { return options_.replica; }
  std::chrono::milliseconds takeover_after() const { return options_.takeover_after; }
  size_t threads() const { return options_.threads; }

 private:
  struct Job {
    std::string operation;
    std::chrono::steady_clock::time_point deadline;
    std::function<void(RecordStore&)> run;    // runs the call and its callback
    std::function<void(RecordError)> expire;  // the callback, when the deadline passed first
  };
  template <class T>
  Job make_job(std::string operation, std::function<RecordResult<T>(RecordStore&)> call,
               std::function<void(RecordResult<T>)> done);
  bool push(Job job, bool priority);
  void ticker();
  void heartbeat_now();
  void check_lease();
  template <class T>
  void observe(const std::string& operation, std::chrono::steady_clock::time_point started, const RecordResult<T>& r);

  RecordServiceOptions options_;
  Metrics& metrics_;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable tick_;
  std::deque<Job> priority_, admitted_;
  // Claims, checkpoints and closes wait apart: a store thread takes all that wait (up to
  // kWriteBatch of each) and writes them in one transaction, so sessions that write
  // together share one commit. With a SQLite file each commit is an fsync (about 1 ms on a
  // cloud disk): one per claim and one per close held a dealer to about 400 sessions a
  // second, whatever its cores.
  template <class Request, class Answer>
  struct Pending {
    Request request;
    std::chrono::steady_clock::time_point started;
    std::function<void(RecordResult<Answer>)> done;
  };
  struct PendingWrites {
    std::vector<Pending<ClaimRequest, ClaimOutcome>> claims;
    std::vector<Pending<Checkpoint, Ok>> checkpoints;
    std::vector<Pending<CloseRequest, Ok>> closes;
    bool empty() const { return claims.empty() && checkpoints.empty() && closes.empty(); }
  };
  static constexpr size_t kWriteBatch = 32;
  std::deque<Pending<ClaimRequest, ClaimOutcome>> claims_;
  std::deque<Pending<Checkpoint, Ok>> checkpoints_;
  std::deque<Pending<CloseRequest, Ok>> closes_;
  bool writes_waiting() const { return !claims_.empty() || !checkpoints_.empty() || !closes_.empty(); }
  PendingWrites take_writes();  // under mutex_
  void write_batch(RecordStore& store, PendingWrites pending);
  bool stopping_ = false;
  bool healthy_ = true;
  std::string failure_;
  bool heartbeat_queued_ = false;
  std::chrono::steady_clock::time_point lease_renewed_;  // when the last beat that went through was handed in
  bool lease_lost_ = false;
  std::function<void(HeartbeatNews)> on_heartbeat_;
  std::function<void()> on_lease_lost_;
  std::vector<std::thread> threads_;
};

}  // namespace bp::server
