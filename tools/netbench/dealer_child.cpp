#include "dealer_child.hpp"

#include "bp/server/process_stats.hpp"

#include <signal.h>
#include <sys/syscall.h>
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
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    syscall(SYS_close_range, 3u, ~0u, 0u);  // the benchmark's sockets stay ours
    std::vector<std::string> args = {path, "--listen", "127.0.0.1:0", "--allow-anonymous", "--log-level", "warn"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  close(log_fd);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  close(out[0]);
  const auto colon = line.rfind(':');
  if (colon == std::string::npos) {
    std::ifstream log(log_path_);
    std::stringstream text;
    text << log.rdbuf();
    throw std::runtime_error("bp-dealer (" + path + ") did not start: " + text.str());
  }
  port_ = static_cast<uint16_t>(std::stoi(line.substr(colon + 1)));
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

}  // namespace bp::netbench
