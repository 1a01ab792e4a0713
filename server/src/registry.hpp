// The running sessions by id. Creating and finding take a short lock; everything else about
// a session happens on its own strand.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "bp/server/config.hpp"
#include "bp/wire/codec.hpp"
#include "session.hpp"

namespace bp::server {

class SessionRegistry {
 public:
  SessionRegistry(boost::asio::io_context& ioc, const DealerConfig& config, SessionEnv env);

  // A new session, or the reason there cannot be one (limits, shutting down).
  std::variant<std::shared_ptr<AggregationSession>, std::string> create(const wire::CreateSessionMsg& request);
  std::shared_ptr<AggregationSession> find(const std::string& id);

  void stop_accepting();
  size_t running();
  void shutdown_all(const std::string& reason);

 private:
  void prune_locked();

  boost::asio::io_context& ioc_;
  const DealerConfig& config_;
  SessionEnv env_;
  std::mutex mutex_;
  bool accepting_ = true;
  std::unordered_map<std::string, std::shared_ptr<AggregationSession>> sessions_;
};

}  // namespace bp::server
