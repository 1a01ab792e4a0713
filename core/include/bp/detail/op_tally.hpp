// Counts of the group operations this thread's multiscalar multiplications and point
// encodings perform, for `bp bench --limit` (the distance from the measured time to what
// those operations alone would cost). Off unless a tally is installed: then each
// multiscalar multiplication adds the additions and doublings its algorithm does for its
// inputs (the digit plans every backend shares) and the time spent inside it. Measuring only: the counting recodes the
// public scalars once more, and counts of constant-time multiplications depend on sizes
// alone, never on the scalars.
#pragma once

#include <cstdint>

namespace bp::detail {

struct OpTally {
  uint64_t additions = 0;  // point additions, of any form (mixed, cached, within tables)
  uint64_t doublings = 0;
  uint64_t decompressions = 0;  // Ristretto decodes (batched ones one by one)
  uint64_t compressions = 0;    // Ristretto encodes
  uint64_t msm_calls = 0;
  uint64_t msm_points = 0;
  double msm_seconds = 0;  // wall time inside multiscalar multiplications
};

// Installs `tally` for this thread (null: none) and returns the one before.
OpTally* install_op_tally(OpTally* tally);
// This thread's tally, or null (the common case: nothing is counted).
OpTally* op_tally();

}  // namespace bp::detail
