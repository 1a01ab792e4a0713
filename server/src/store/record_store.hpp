// The record behind the dealer: one row per session id, claimed when the session is created
// and closed with its outcome before any party hears it. This is the backend seam (SQLite
// embedded, PostgreSQL shared by replicas, memory for tests and demos without a file); each
// call is one blocking round trip, made only on the record service's own threads
// (record_service.hpp), never on a session or I/O thread.
//
// A row is `open` (claimed by one replica, with the abort record that stands for it if that
// replica is lost) or closed (`completed` / `aborted`, with the outcome's JSON). An id is
// claimed once: while its row exists nobody else can claim it, whichever replica asks.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bp/errors.hpp"

namespace bp::server {

// Why the store could not do what was asked: it is down, full, slow or refused the write
// (`store_down`), or the row is not in the state the call needs (a claim that expired).
struct StoreError {
  std::string reason;
  bool store_down = true;
};
template <class T>
using StoreResult = Result<T, StoreError>;

struct ClaimRequest {
  std::string id;
  std::string owner;      // "key:HEX" for an operator, "addr:IP" for an unsigned session
  uint32_t bits = 0;
  uint32_t parties = 0;
  std::string lost_json;  // the record written in its place if the claiming replica is lost
  // At most this many open sessions of `owner` on all replicas together (0: no cap). Claims
  // racing on several replicas may pass it by the number in flight at once.
  uint32_t owner_cap = 0;
};

enum class ClaimOutcome { Claimed, Taken, OwnerAtCap };

struct OpenSessionRow {
  std::string id;
  std::string replica;
  std::string phase;
  uint32_t bits = 0, parties = 0, joined = 0;
};

struct SessionRow {
  bool open = false;
  std::string json;      // the outcome record, when closed
  OpenSessionRow live;   // who runs it, when open
};

struct PhaseUpdate {
  std::string id;
  std::string phase;
  uint32_t joined = 0;
};

// What one heartbeat learns: cancellations asked of this replica's sessions elsewhere.
struct HeartbeatAnswer {
  std::vector<std::string> cancel;
  size_t expired_elsewhere = 0;  // open claims of replicas presumed dead, closed by this beat
};

class RecordStore {
 public:
  virtual ~RecordStore() = default;
  // Takes the id for this replica, unless a row (open or closed) already holds it or the
  // owner has its cap of open sessions.
  virtual StoreResult<ClaimOutcome> claim(const ClaimRequest& request) = 0;
  // Closes this replica's open claim with the outcome. An error when the claim is no longer
  // this replica's open one (it expired, or never was): the record then does not hold it.
  virtual StoreResult<Ok> close(const std::string& id, bool ok, const std::string& json) = 0;
  virtual StoreResult<std::optional<SessionRow>> find(const std::string& id) = 0;
  // The open sessions of one owner, on every replica.
  virtual StoreResult<std::vector<OpenSessionRow>> open_sessions(const std::string& owner) = 0;
  // Marks the owner's open sessions among `ids` for cancellation by whichever replica runs
  // them; returns the ids it marked.
  virtual StoreResult<std::vector<std::string>> request_cancel(const std::string& owner,
                                                               const std::vector<std::string>& ids) = 0;
  // Says this replica is alive (a real write, so it doubles as the health probe), stores its
  // sessions' phases, closes the claims of replicas silent for longer than `replica_ttl`
  // with their lost records, and returns what was asked of this replica meanwhile. After a
  // failure the probe writes as much as a large record would (`after_failure`), so the store
  // is called healthy again only once a record would fit.
  virtual StoreResult<HeartbeatAnswer> heartbeat(const std::vector<PhaseUpdate>& phases,
                                                 std::chrono::seconds replica_ttl, bool after_failure) = 0;
  // Deletes closed records older than `age`; returns how many went.
  virtual StoreResult<size_t> prune(std::chrono::seconds age) = 0;
};

}  // namespace bp::server
