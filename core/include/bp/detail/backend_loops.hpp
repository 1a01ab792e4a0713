// Timing loops for the benchmark's per-backend primitive rows: each runs one operation
// `iterations` times, every result feeding the next (so the loop measures latency, as the
// point formulas see it; point_add_independent runs four chains side by side, so it measures
// their throughput, four additions an iteration). The field loops of the four-lane backends do four
// multiplications per iteration, one per lane; the portable and mulx backends' do one.
#pragma once

#include <cstddef>

#include "bp/backend.hpp"

namespace bp::detail {

struct BackendLoops {
  void (*field_mul)(size_t iterations);
  void (*field_sq)(size_t iterations);
  void (*point_add)(size_t iterations);
  void (*point_add_independent)(size_t iterations);
  void (*point_dbl)(size_t iterations);
  int field_ops_per_iteration;  // 4 for the four-lane backends, 1 for portable and mulx
  // One chain of pair additions (two additions an iteration, one in each half of 512-bit
  // registers) where the backend's kernels add points in pairs (msm/msm_pairs.inc); null
  // elsewhere.
  void (*point_add_pairs)(size_t iterations) = nullptr;
};

// The loops of a backend this CPU runs (portable, AVX2, AVX-512 IFMA on its
// instructions, mulx); null otherwise.
const BackendLoops* backend_loops(Backend backend);

}  // namespace bp::detail
