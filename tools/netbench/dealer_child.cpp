#include "dealer_child.hpp"

#include "bp/server/dealer_process.hpp"
#include "bp/server/process_stats.hpp"
#include "raw_socket.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bp::netbench {

DealerChild::DealerChild(const std::string& path, const std::vector<std::string>& flags) {
  char log_template[] = "/tmp/bp-netbench-dealer-XXXXXX";
  const int log_fd = mkstemp(log_template);
  if (log_fd < 0) throw std::runtime_error("cannot make a log file");
  log_path_ = log_template;
  std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--allow-anonymous", "--log-level", "warn"};
  args.insert(args.end(), flags.begin(), flags.end());
  const auto child = server::start_dealer_process(path, args, log_fd);
  close(log_fd);
  pid_ = child.pid;
  if (child.port == 0) {
    std::ifstream log(log_path_);
    std::stringstream text;
    text << log.rdbuf();
    throw std::runtime_error("bp-dealer (" + path + ") did not start: " + text.str());
  }
  port_ = child.port;
}

DealerChild::~DealerChild() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  std::remove(log_path_.c_str());
}

size_t DealerChild::rss_kib() const { return server::process_rss_kib(pid_); }
size_t DealerChild::open_fds() const { return server::process_open_fds(pid_); }
double DealerChild::cpu_seconds() const { return server::process_cpu_seconds(pid_); }

size_t DealerChild::heap_in_use_kib() const {
  // A loaded machine may be slow to answer: a few tries before giving up on this sample.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = connect_from("127.0.0.1", port_, std::chrono::seconds(10));
    if (fd < 0) continue;
    send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const std::string metrics = read_until_close(fd, 1 << 20);
    close(fd);
    const std::string name = "\nbp_heap_in_use_bytes ";
    if (const auto at = metrics.find(name); at != std::string::npos)
      return std::stoull(metrics.substr(at + name.size())) / 1024;
  }
  return 0;
}

}  // namespace bp::netbench
