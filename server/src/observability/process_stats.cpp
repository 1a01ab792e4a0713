#include "bp/server/process_stats.hpp"

#include <sys/resource.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace bp::server {
namespace {
std::string proc_path(int pid, const char* what) {
  return "/proc/" + (pid == 0 ? std::string("self") : std::to_string(pid)) + "/" + what;
}
}  // namespace

size_t process_rss_kib(int pid) {
  std::ifstream in(proc_path(pid, "status"));
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      size_t kib = 0;
      in >> kib;
      return kib;
    }
    in.ignore(4096, '\n');
  }
  return 0;
}

size_t process_open_fds(int pid) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(proc_path(pid, "fd"), ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

double process_cpu_seconds(int pid) {
  std::ifstream in(proc_path(pid, "stat"));
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  // The fields after the command name (which may hold spaces and ends with ')'), counting
  // from 3; utime is the 14th, stime the 15th, in clock ticks.
  std::istringstream rest(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i >= 14) ticks += std::stod(field);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

size_t process_max_fds() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  return limit.rlim_cur == RLIM_INFINITY ? 0 : static_cast<size_t>(limit.rlim_cur);
}

}  // namespace bp::server
