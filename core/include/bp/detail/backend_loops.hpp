// Timing loops for the benchmark's per-backend primitive rows: each runs one operation
// `iterations` times, every result feeding the next (so the loop measures latency, as the
// point formulas see it). The AVX2 loops must only be called when
// backend_supported(Backend::avx2); their field loops do four multiplications per
// iteration, one per lane.
#pragma once

#include <cstddef>

namespace bp::detail {

void avx2_field_mul_loop(size_t iterations);
void avx2_field_sq_loop(size_t iterations);
void avx2_point_add_loop(size_t iterations);
void avx2_point_dbl_loop(size_t iterations);

}  // namespace bp::detail
