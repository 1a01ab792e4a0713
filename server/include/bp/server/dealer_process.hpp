// bp-dealer as a child process, the way an operator's supervisor runs it: what the
// integration tests and bp-netbench's soak and load runs start (DealerServer is the same
// daemon as an object in this process).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bp::server {

struct DealerChildProcess {
  int pid = -1;
  uint16_t port = 0;  // 0: it exited before printing "listening on HOST:PORT"
};

// Runs `path` with `args`; its stderr goes to log_fd and every other descriptor of ours is
// closed in the child; with nofile, under that RLIMIT_NOFILE (soft and hard). Waits for the
// "listening on HOST:PORT" line the daemon prints on stdout once it listens.
DealerChildProcess start_dealer_process(const std::string& path, const std::vector<std::string>& args, int log_fd,
                                        std::optional<unsigned> nofile = std::nullopt);

}  // namespace bp::server
