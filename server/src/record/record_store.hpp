// The record behind the dealer: one row per session id, claimed when the session is created,
// checkpointed as it runs and closed with its outcome before any party hears it. This is the
// seam the dealer sees (one implementation, sql_record_store.cpp, over SQLite or PostgreSQL);
// each call is one blocking round trip, made only on the record service's own threads
// (record_service.hpp), never on a session or I/O thread.
//
// A row is open (held by one replica under an epoch, with the checkpoint that lets another
// replica take it over, and the abort record that stands for it if nobody does) or closed
// (completed / aborted, with the outcome's JSON). An id is claimed once: while its row
// exists nobody else can claim it. Every write of a running session names the epoch it
// holds, so a replica that was taken over (paused, partitioned, presumed dead) can write
// nothing more: not a checkpoint, not an outcome.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bp/errors.hpp"

namespace bp::server {

enum class RecordErrorKind {
  Down,    // the record failed or did not answer (full, unreachable, read-only, slow): may pass
  Fenced,  // the row is not this replica's at that epoch any more (taken over, closed, expired)
};

struct RecordError {
  std::string reason;
  RecordErrorKind kind = RecordErrorKind::Down;
  bool down() const { return kind == RecordErrorKind::Down; }
};
template <class T>
using RecordResult = Result<T, RecordError>;

// A session's first epoch; each takeover adds one.
inline constexpr uint64_t kFirstEpoch = 1;

struct ClaimRequest {
  std::string id;
  std::string owner;  // "key:HEX" for an operator, "addr:IP" for an unsigned session
  uint32_t bits = 0;
  uint32_t parties = 0;
  std::string lost_json;  // the record written in its place if no replica finishes it
  // At most this many open sessions of `owner` on all replicas together (0: no cap). Claims
  // racing on several replicas may pass it by the number in flight at once.
  uint32_t owner_cap = 0;
  std::vector<uint8_t> checkpoint;  // the session's terms, before anyone joins
};

enum class ClaimOutcome { Claimed, Taken, OwnerAtCap };

// What a running session writes as it goes: its checkpoint, and the phase and seats that
// listings show.
struct Checkpoint {
  std::string id;
  uint64_t epoch = kFirstEpoch;
  std::vector<uint8_t> bytes;
  std::string phase;
  uint32_t joined = 0;
};

// A session's end, as close() takes it.
struct CloseRequest {
  std::string id;
  uint64_t epoch = kFirstEpoch;
  bool ok = false;
  std::string json;
};

// Writes of several sessions that go to the record together, in one transaction: one commit
// (one fsync) for them all, where each alone would wait for its own. Each is answered on its
// own, as the single call would answer it.
struct WriteBatch {
  std::vector<ClaimRequest> claims;
  std::vector<Checkpoint> checkpoints;
  std::vector<CloseRequest> closes;
  size_t size() const { return claims.size() + checkpoints.size() + closes.size(); }
};
struct WriteAnswers {
  std::vector<RecordResult<ClaimOutcome>> claims;
  std::vector<RecordResult<Ok>> checkpoints, closes;
};

struct Takeover {
  enum class Kind {
    Taken,    // ours now, at `epoch`, rebuilt from `checkpoint`
    Held,     // its holder (`holder`) is alive, or it was released to a replica that asked first
    Ended,    // closed: its record is all there is
    Unknown,  // no such id
  };
  Kind kind = Kind::Unknown;
  uint64_t epoch = 0;
  std::vector<uint8_t> checkpoint;  // Taken, and Held (to see who may ask for it)
  std::string holder;
  std::string outcome_json;  // Ended: the record
};

struct OpenSessionRow {
  std::string id;
  std::string replica;
  std::string phase;
  uint32_t bits = 0, parties = 0, joined = 0;
};

struct SessionRow {
  bool open = false;
  std::string json;     // the outcome record, when closed
  OpenSessionRow live;  // who runs it, when open
};

// A session this replica holds in the record, as the record sees it.
struct HeldSession {
  std::string id;
  uint64_t epoch = 0;
};

// What one heartbeat learns.
struct HeartbeatAnswer {
  std::vector<std::string> cancel;   // cancellations asked of this replica's sessions elsewhere
  std::vector<std::string> release;  // sessions another replica asked this one to hand over
  std::vector<HeldSession> held;     // every open session the record says this replica holds
  size_t expired_elsewhere = 0;      // open sessions nobody ran for the TTL, closed by this beat
};

class RecordStore {
 public:
  virtual ~RecordStore() = default;
  // Takes the id for this replica at kFirstEpoch, unless a row (open or closed) already
  // holds it or the owner has its cap of open sessions.
  virtual RecordResult<ClaimOutcome> claim(const ClaimRequest& request) = 0;
  // Replaces the checkpoint of a session this replica holds at that epoch (else Fenced).
  virtual RecordResult<Ok> checkpoint(const Checkpoint& checkpoint) = 0;
  // Several sessions' checkpoints in one transaction (one commit to wait for): each its own
  // answer, or one error for all when the transaction fails.
  virtual RecordResult<std::vector<RecordResult<Ok>>> checkpoints(const std::vector<Checkpoint>& batch) = 0;
  // Closes a session this replica holds at that epoch with its outcome (else Fenced). Closing
  // again with the same outcome succeeds: a retry after an answer lost on the way.
  virtual RecordResult<Ok> close(const std::string& id, uint64_t epoch, bool ok, const std::string& json) = 0;
  // The batch in one transaction, its writes in the order of their session ids (so two
  // batches on two connections take row locks in one order), a session's claim before its
  // checkpoint before its close; or one error for all when the transaction fails. This
  // default runs each on its own, for a store without transactions.
  virtual RecordResult<WriteAnswers> write_batch(const WriteBatch& batch);
  // Gives a session up (a drain, or another replica asked for it): it stays open with its
  // checkpoint, and the next replica a party reaches takes it over at once.
  virtual RecordResult<Ok> release(const std::string& id, uint64_t epoch) = 0;
  // Takes an open session over with the next epoch (one conditional update: of replicas
  // racing, one wins) when its holder released it, or has been silent for `silent_for`. A
  // session released to another replica that asked for it is that replica's for
  // `silent_for` first.
  virtual RecordResult<Takeover> take_over(const std::string& id, std::chrono::milliseconds silent_for) = 0;
  // Asks the live holder of an open session to release it to this replica (the first
  // replica to ask gets it), by the holder's next heartbeat.
  virtual RecordResult<Ok> request_release(const std::string& id) = 0;
  virtual RecordResult<std::optional<SessionRow>> find(const std::string& id) = 0;
  // The open sessions of one owner, on every replica.
  virtual RecordResult<std::vector<OpenSessionRow>> open_sessions(const std::string& owner) = 0;
  // Marks the owner's open sessions among `ids` for cancellation by whichever replica runs
  // them; returns the ids it marked.
  virtual RecordResult<std::vector<std::string>> request_cancel(const std::string& owner,
                                                                const std::vector<std::string>& ids) = 0;
  // Says this replica is alive (a real write, so it doubles as the health probe), closes the
  // sessions nobody has run for `ttl` with their lost records, and returns what was asked of
  // this replica meanwhile and what it holds. After a failure the probe writes as much as a
  // large record would (`after_failure`), so the store is called healthy again only once a
  // record would fit.
  virtual RecordResult<HeartbeatAnswer> heartbeat(std::chrono::seconds ttl, bool after_failure) = 0;
  // Deletes closed records older than `age`; returns how many went.
  virtual RecordResult<size_t> prune(std::chrono::seconds age) = 0;
};

}  // namespace bp::server
