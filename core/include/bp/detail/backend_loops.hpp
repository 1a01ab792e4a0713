// Timing loops for the benchmark's per-backend primitive rows: each runs one operation
// `iterations` times, every result feeding the next (so the loop measures latency, as the
// point formulas see it). The field loops of the four-lane backends do four
// multiplications per iteration, one per lane.
#pragma once

#include <cstddef>

#include "bp/backend.hpp"

namespace bp::detail {

struct FourLaneLoops {
  void (*field_mul)(size_t iterations);
  void (*field_sq)(size_t iterations);
  void (*point_add)(size_t iterations);
  void (*point_dbl)(size_t iterations);
};

// The loops of a four-lane backend this CPU runs (AVX2, or AVX-512 IFMA on its
// instructions); null otherwise and for the portable backend.
const FourLaneLoops* four_lane_loops(Backend backend);

}  // namespace bp::detail
