// The running sessions by id. Creating and finding take a short lock; everything else about
// a session happens on its own strand. An id is never given out twice while a session runs
// under it or the outcome store holds its record, and no owner (operator key, or address for
// unsigned sessions) holds more open sessions than its cap.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "bp/server/config.hpp"
#include "bp/wire/codec.hpp"
#include "outcome_store.hpp"
#include "session.hpp"

namespace bp::server {

class SessionRegistry {
 public:
  SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env, OutcomeStore& store);

  // A new session, or the reason there cannot be one (limits, id taken, shutting down).
  std::variant<std::shared_ptr<AggregationSession>, std::string> create(const wire::CreateSessionMsg& request,
                                                                         SessionOwner owner);
  std::shared_ptr<AggregationSession> find(const std::string& id);
  // The owner's open sessions, after cancelling those of `cancel` it owns; the ids it asked
  // to cancel that are not its open sessions come back in `not_cancelled`.
  std::vector<wire::SessionSummary> manage(const SessionOwner& owner, const std::vector<std::string>& cancel,
                                      std::vector<std::string>& not_cancelled);

  void stop_accepting();
  size_t running();
  void shutdown_all(const std::string& reason);

 private:
  void prune_locked();
  std::optional<std::string> over_cap_locked(const SessionOwner& owner) const;

  boost::asio::io_context& ioc_;
  const DealerConfig& config_;
  SessionEnv env_;
  OutcomeStore& store_;
  std::mutex mutex_;
  bool accepting_ = true;
  std::unordered_map<std::string, std::shared_ptr<AggregationSession>> sessions_;
};

}  // namespace bp::server
