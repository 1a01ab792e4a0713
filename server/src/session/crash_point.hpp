// Points where a test may have the dealer die on purpose, to reach a crash window for real
// (tests/cluster/test_cluster.sh, F). BP_TEST_CRASH_AT=NAME in the dealer's environment
// makes it log the point and SIGKILL itself the first time it gets there: no clean-up, no
// record write, as a killed process or a lost machine. Unset (always, outside tests), a
// point costs one string comparison. The points:
//   successor-claimed  the record holds a successor session; its predecessor's abort is
//                      not recorded yet, and no party has been told
#pragma once

#include <string_view>

namespace bp::server {

void crash_point(std::string_view name);

}  // namespace bp::server
