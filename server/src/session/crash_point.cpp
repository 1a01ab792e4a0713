#include "session/crash_point.hpp"

#include <csignal>
#include <cstdlib>
#include <string>

#include "observability/log.hpp"

namespace bp::server {

void crash_point(std::string_view name) {
  static const std::string asked = [] {
    const char* at = std::getenv("BP_TEST_CRASH_AT");
    return std::string(at ? at : "");
  }();
  if (asked.empty() || asked != name) return;
  log::error("dying on purpose at a crash point (BP_TEST_CRASH_AT)", {{"point", name}});
  std::raise(SIGKILL);
}

}  // namespace bp::server
