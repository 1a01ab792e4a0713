// The real bp-dealer binary as a child process on a loopback port, and what /proc says about
// it: resident memory, open descriptors, CPU time. The soak and load benchmarks measure the
// daemon an operator runs, not a copy of it inside the benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bp::netbench {

class DealerChild {
 public:
  // bp-dealer --listen 127.0.0.1:0 --allow-anonymous plus `flags`; waits for its port.
  // Throws std::runtime_error if it does not start.
  DealerChild(const std::string& path, const std::vector<std::string>& flags);
  ~DealerChild();  // SIGTERM, then wait
  DealerChild(const DealerChild&) = delete;
  DealerChild& operator=(const DealerChild&) = delete;

  uint16_t port() const { return port_; }
  int pid() const { return pid_; }
  size_t rss_kib() const;
  size_t open_fds() const;
  double cpu_seconds() const;
  // bp_heap_in_use_bytes from its /metrics, in KiB (0 if it does not answer).
  size_t heap_in_use_kib() const;

 private:
  int pid_ = -1;
  uint16_t port_ = 0;
  std::string log_path_;
};

}  // namespace bp::netbench
