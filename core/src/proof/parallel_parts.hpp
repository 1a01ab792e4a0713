// Runs the parts of one job at once: part 0 on the calling thread, the others on worker
// threads that outlive the call. A thread made for one call and gone after it starts cold
// every time (its thread-local buffers, its allocator arena, their pages), which cost a
// batch verification's second part about 35% more than its first on a warm caller: two
// threads reached 1.7x one where they should reach 2x. Kept, the workers stay warm.
//
// The workers are made on demand (as many as the most parts asked for, minus one) and live
// until the process ends. Any number of callers may run jobs at once, and a part may run
// jobs of its own: the caller runs whatever parts of its job no worker has taken yet, so a
// job never waits for a busy worker to start it. A part's exception reaches the caller. In
// a child after fork() the workers are made afresh.
#pragma once

#include <functional>

namespace bp::detail {

void run_parts(unsigned parts, const std::function<void(unsigned part)>& part);

}  // namespace bp::detail
