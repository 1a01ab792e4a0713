// What Linux's /proc says about a process (0 = this one): resident memory, open descriptors,
// CPU time. The dealer exports its own as Prometheus process_* metrics; the soak benchmark
// and the integration tests read the dealer's from outside.
#pragma once

#include <cstddef>

namespace bp::server {

size_t process_rss_kib(int pid = 0);
size_t process_open_fds(int pid = 0);
double process_cpu_seconds(int pid = 0);  // user + system
size_t process_max_fds();                 // this process's soft RLIMIT_NOFILE

}  // namespace bp::server
