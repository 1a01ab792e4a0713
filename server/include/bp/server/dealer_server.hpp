// The bp-dealer daemon as a library object, so tests and tools can run it in process too.
#pragma once

#include <cstdint>
#include <memory>

#include "bp/server/config.hpp"

namespace bp::server {

class DealerServer {
 public:
  explicit DealerServer(DealerConfig config);  // throws std::runtime_error if it cannot listen or open the db
  ~DealerServer();

  uint16_t port() const;  // the bound port (useful with port 0)
  bool tls() const;       // serving wss:// and https://
  // Serves on config.threads threads until stop() or SIGTERM/SIGINT (drain, then exit).
  void run();
  // Begins the graceful shutdown from any thread.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bp::server
