// The sessions running on this replica, by id. Creating and finding take a short lock;
// everything else about a session happens on its own strand. An id is claimed in the record
// (shared by every replica with PostgreSQL) before its session exists, so it is never given
// out twice, here or on another replica, while a session runs under it or a record holds it.
// No owner (operator key, or address for unsigned sessions) holds more open sessions here
// than its cap.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "bp/server/config.hpp"
#include "bp/wire/codec.hpp"
#include "session.hpp"
#include "store/record_service.hpp"

namespace bp::server {

// The record's text for an owner: "key:HEX" or "addr:IP".
std::string owner_text(const SessionOwner& owner);

class SessionRegistry {
 public:
  using Created = std::variant<std::shared_ptr<AggregationSession>, std::string>;  // or why not
  SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env, RecordService& records);

  // A new session, or the reason there cannot be one (limits, id taken, the record down or
  // busy, shutting down), given to `done` on a store thread or at once.
  void create(const wire::CreateSessionMsg& request, SessionOwner owner, std::function<void(Created)> done);
  std::shared_ptr<AggregationSession> find(const std::string& id);
  // The owner's open sessions on every replica, after cancelling those of `cancel` it owns
  // (here at once; on another replica through the record, by that replica's next heartbeat).
  // Ids it asked to cancel that are not its open sessions come back in `not_cancelled`.
  void manage(const SessionOwner& owner, std::vector<std::string> cancel,
              std::function<void(std::variant<wire::SessionListMsg, std::string>)> done);
  // Ends the sessions the record says were cancelled elsewhere.
  void cancel_from_record(const std::vector<std::string>& ids);

  void stop_accepting();
  // Sessions not yet finished, and creates waiting for their claim. Changes nothing.
  size_t running();
  // Drops the finished sessions (the dealer's timer calls it; a create makes room with it).
  void forget_finished();
  void shutdown_all(const std::string& reason);

 private:
  void prune_locked();
  std::optional<std::string> over_cap_locked(const SessionOwner& owner) const;
  void claimed(const wire::CreateSessionMsg& request, SessionOwner owner, const std::string& id,
               mpc::SessionParams params, StoreResult<ClaimOutcome> claim, const std::function<void(Created)>& done);
  std::vector<wire::SessionSummary> local_summaries(const SessionOwner& owner, const std::vector<std::string>& skip);

  boost::asio::io_context& ioc_;
  const DealerConfig& config_;
  SessionEnv env_;
  RecordService& records_;
  std::mutex mutex_;
  bool accepting_ = true;
  std::unordered_map<std::string, std::shared_ptr<AggregationSession>> sessions_;
  std::set<std::string> claiming_;  // ids whose claim is with the record right now
};

}  // namespace bp::server
