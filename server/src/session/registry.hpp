// The sessions running on this replica, by id. Creating and finding take a short lock;
// everything else about a session happens on its own strand. An id is claimed in the record
// (shared by every replica with PostgreSQL) before its session exists, so it is never given
// out twice, here or on another replica, while a session runs under it or a record holds it.
// No owner (operator key, or address for unsigned sessions) holds more open sessions here
// than its cap.
//
// A party whose session this replica does not run is not turned away: the registry takes
// the session over from the record when its holder released it or fell silent (and asks a
// live holder to hand it over otherwise), rebuilds it from its checkpoint and seats the
// party there. The heartbeat's news keeps the registry and the record in step: sessions the
// record says another replica now holds are stopped, sessions it says are ours but that no
// longer run here are released.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "bp/server/config.hpp"
#include "bp/wire/codec.hpp"
#include "record/record_service.hpp"
#include "session/session.hpp"

namespace bp::server {

// The record's text for an owner: "key:HEX" or "addr:IP".
std::string owner_text(const SessionOwner& owner);

// Why a request cannot be served here: the message for the peer, and, when the session goes
// on (elsewhere, or here once the record allows), how long the party should wait before it
// joins again.
struct Refusal {
  std::string reason;
  uint32_t reconnect_after_ms = 0;
  // A session that has ended: what its record holds (a result or an abort), for a party that
  // comes back after the end.
  std::optional<std::string> outcome_json;
  wire::RefusalKind kind = wire::RefusalKind::None;  // what the client's caller can act on
};

// Why a session cannot be created, and its kind (a limit of the dealer's, say); from a
// bare reason, of no particular kind.
struct CreateRefusal {
  CreateRefusal(std::string why, wire::RefusalKind of = wire::RefusalKind::None) : reason(std::move(why)), kind(of) {}
  CreateRefusal(const char* why) : CreateRefusal(std::string(why)) {}
  std::string reason;
  wire::RefusalKind kind;
};

// The limits on new sessions, which SIGHUP may change while sessions run (a session keeps
// the terms it was created under).
struct SessionLimits {
  size_t max_sessions = 0;
  size_t max_sessions_per_ip = 0;
  size_t max_sessions_per_operator = 0;
  size_t max_anonymous_sessions_per_ip = 0;
  size_t max_parties = 0;
  uint32_t default_round_timeout_ms = 0;
  uint32_t max_round_timeout_ms = 0;
  static SessionLimits of(const DealerConfig& config);
};

// One running session as the operator's listing shows it (GET /v1/sessions).
struct SessionListing {
  wire::SessionSummary summary;
  std::string owner;  // owner_text
  double running_s = 0;
};

class SessionRegistry {
 public:
  using Created = std::variant<std::shared_ptr<AggregationSession>, CreateRefusal>;  // or why not
  using Found = std::variant<std::shared_ptr<AggregationSession>, Refusal>;
  SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env, RecordService& records);

  // A new session, or the reason there cannot be one (limits, id taken, the record down or
  // busy, shutting down), given to `done` on a store thread or at once.
  void create(const wire::CreateSessionMsg& request, SessionOwner owner, std::function<void(Created)> done);
  // Every session running on this replica, by id.
  std::vector<SessionListing> listing();
  // What new sessions are held to from now on (a reload).
  void set_limits(const SessionLimits& limits);
  std::shared_ptr<AggregationSession> find(const std::string& id);
  // The session a party asks for: running here, or taken over from the record. A live holder
  // is asked to hand it over only for a party the session admits (`party_key`, checked by
  // the connection; none for an anonymous join).
  void find_or_take_over(const std::string& id, std::optional<wire::PublicKey> party_key,
                         std::function<void(Found)> done);
  // The owner's open sessions on every replica, after cancelling those of `cancel` it owns
  // (here at once; on another replica through the record, by that replica's next heartbeat).
  // Ids it asked to cancel that are not its open sessions come back in `not_cancelled`.
  void manage(const SessionOwner& owner, std::vector<std::string> cancel,
              std::function<void(std::variant<wire::SessionListMsg, std::string>)> done);

  // What a heartbeat brought: cancellations, hand-over requests, and what the record says
  // this replica holds.
  void heartbeat(const HeartbeatNews& news);
  // The record has not heard from this replica for the lease's length: stop every session.
  void lease_lost();

  void stop_accepting();
  // Sessions not yet finished, and creates and takeovers waiting for the record. Changes nothing.
  size_t running();
  // Drops the finished sessions (the dealer's timer calls it; a create makes room with it).
  void forget_finished();
  void shutdown_all(const std::string& reason);   // aborts every running session
  void hand_over_all(const std::string& reason);  // releases every running session in the record

 private:
  struct Entry {
    std::shared_ptr<AggregationSession> session;
    std::chrono::steady_clock::time_point since;  // when this replica began to run it
  };
  void prune_locked();
  std::optional<std::string> over_cap_locked(const SessionOwner& owner) const;
  void claimed(const std::string& id, SessionTerms terms, wire::DealerCheckpoint checkpoint,
               RecordResult<ClaimOutcome> claim, const std::function<void(Created)>& done);
  // A session's successor (SessionEnv::start_successor): claimed in the record as a create's
  // session is, then run here.
  void start_successor(SessionTerms terms, wire::DealerCheckpoint checkpoint, std::function<void(bool)> done);
  // What the record says of a claimed session if no replica finishes it.
  std::string lost_outcome(const SessionTerms& terms) const;
  void taken_over(const std::string& id, RecordResult<Takeover> takeover);
  void held_elsewhere(const std::string& id, const Takeover& held);
  void answer_takers(const std::string& id, const Found& found);
  std::vector<wire::SessionSummary> local_summaries(const SessionOwner& owner, const std::vector<std::string>& skip);

  boost::asio::io_context& ioc_;
  const DealerConfig& config_;
  SessionEnv env_;
  RecordService& records_;
  std::mutex mutex_;
  SessionLimits limits_;  // under mutex_
  bool accepting_ = true;
  std::unordered_map<std::string, Entry> sessions_;
  std::set<std::string> claiming_;  // ids whose claim is with the record right now
  struct Taker {
    std::optional<wire::PublicKey> party_key;
    std::function<void(Found)> done;
  };
  std::map<std::string, std::vector<Taker>> taking_;  // takeovers in flight, and who waits
};

}  // namespace bp::server
