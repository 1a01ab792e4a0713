#include "bp/server/dealer_process.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace bp::server {

DealerChildProcess start_dealer_process(const std::string& path, const std::vector<std::string>& args, int log_fd,
                                        std::optional<unsigned> nofile) {
  int out[2];
  if (pipe(out) != 0) return {};
  DealerChildProcess child;
  child.pid = fork();
  if (child.pid < 0) return {};
  if (child.pid == 0) {
    if (nofile) {
      const rlimit limit{*nofile, *nofile};
      if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(126);
    }
    dup2(out[1], STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    syscall(SYS_close_range, 3u, ~0u, 0u);  // none of our sockets may live on in the daemon
    std::vector<std::string> argv_text = {path};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  close(out[0]);
  const auto colon = line.rfind(':');
  if (line.rfind("listening on ", 0) == 0 && colon != std::string::npos)
    child.port = static_cast<uint16_t>(std::stoi(line.substr(colon + 1)));
  return child;
}

}  // namespace bp::server
