#include "bp/detail/backend_loops.hpp"

#include "backend/avx2/edwards4.hpp"
#include "backend/ifma/ifma.hpp"
#include "backend/ifma/ifma_x2.hpp"
#include "msm/msm_kernels.hpp"
#include "backend/mulx/edwards64.hpp"

namespace bp::detail {

namespace {

// Keeps a value alive so the compiler cannot drop the work that made it.
template <class T>
void keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

}  // namespace

namespace avx2 {
namespace {
#define BP_LANES_FN BP_AVX2
#include "msm/four_lane_loops.inc"
#undef BP_LANES_FN
}  // namespace
}  // namespace avx2

namespace ifma {
namespace {
#define BP_LANES_FN BP_IFMA
#include "msm/four_lane_loops.inc"
#undef BP_LANES_FN

BP_IFMA void point_add_pairs_loop(size_t iterations) {
  ifma_x2::Extended4 p = ifma_x2::to_extended4(kBasepoint);
  const ifma_x2::Cached4 q = ifma_x2::to_cached4(ifma_x2::dbl(p));
  for (size_t i = 0; i < iterations; ++i) {
    ifma_x2::add_to(p, p, q);
    keep(p);
  }
}
}  // namespace
}  // namespace ifma

namespace mulx {
namespace {
// The vector field names four_lane_loops.inc uses, for one element: the first lane's.
using Fe4 = Fe64;
Fe64 fe4_from_lanes(const Fe& a, const Fe&, const Fe&, const Fe&) { return fe64_from_carried(a); }
Fe64 fe4_splat(const Fe& a) { return fe64_from_carried(a); }
BP_INLINE void fe4_mul_to(Fe64& out, const Fe64& a, const Fe64& b) { out = fe64_mul(a, b); }
BP_INLINE void fe4_sq_to(Fe64& out, const Fe64& a) { out = fe64_sq(a); }
#define BP_LANES_FN
#include "msm/four_lane_loops.inc"
#undef BP_LANES_FN
}  // namespace
}  // namespace mulx

namespace portable {
namespace {
// The portable formulas under the names four_lane_loops.inc uses, so that its rows are
// timed by the same compiled loops as the other backends'.
using Fe4 = Fe;
using LaneExtended = EdwardsPoint;
using LaneCached = CachedPoint;
Fe fe4_from_lanes(const Fe& a, const Fe&, const Fe&, const Fe&) { return a; }
Fe fe4_splat(const Fe& a) { return a; }
BP_INLINE void fe4_mul_to(Fe& out, const Fe& a, const Fe& b) { out = fe_mul(a, b); }
BP_INLINE void fe4_sq_to(Fe& out, const Fe& a) { out = fe_sq(a); }
BP_INLINE EdwardsPoint to_extended4(const EdwardsPoint& p) { return p; }
BP_INLINE CachedPoint to_cached4(const EdwardsPoint& p) { return to_cached(p); }
BP_INLINE void add_to(EdwardsPoint& out, const EdwardsPoint& p, const CachedPoint& q) { out = to_extended(add(p, q)); }
BP_INLINE void dbl_to(EdwardsPoint& out, const EdwardsPoint& p) { out = dbl(p); }
#define BP_LANES_FN
#include "msm/four_lane_loops.inc"
#undef BP_LANES_FN
}  // namespace
}  // namespace portable

const BackendLoops* backend_loops(Backend backend) {
  static const BackendLoops portable_loops{&portable::field_mul_loop, &portable::field_sq_loop,
                                           &portable::point_add_loop, &portable::point_add_independent_loop,
                                           &portable::point_dbl_loop, 1};
  static const BackendLoops avx2_loops{&avx2::field_mul_loop, &avx2::field_sq_loop,
                                       &avx2::point_add_loop, &avx2::point_add_independent_loop,
                                       &avx2::point_dbl_loop, 4};
  static const BackendLoops ifma_loops{&ifma::field_mul_loop, &ifma::field_sq_loop,
                                       &ifma::point_add_loop, &ifma::point_add_independent_loop,
                                       &ifma::point_dbl_loop, 4};
  static const BackendLoops ifma_pairs_loops{&ifma::field_mul_loop,      &ifma::field_sq_loop,
                                             &ifma::point_add_loop,      &ifma::point_add_independent_loop,
                                             &ifma::point_dbl_loop,      4,
                                             &ifma::point_add_pairs_loop};
  static const BackendLoops mulx_loops{&mulx::field_mul_loop, &mulx::field_sq_loop,
                                       &mulx::point_add_loop, &mulx::point_add_independent_loop,
                                       &mulx::point_dbl_loop, 1};
  switch (backend) {
    case Backend::portable: return &portable_loops;
    case Backend::avx2: return backend_supported(backend) ? &avx2_loops : nullptr;
    // The hardware kernels, not emulated ones a test may have installed.
    case Backend::avx512ifma:
      if (ifma_msm_kernels() == &ifma::kMsmKernelsPaired) return &ifma_pairs_loops;
      return ifma_msm_kernels() == &ifma::kMsmKernels ? &ifma_loops : nullptr;
    case Backend::mulx: return backend_supported(backend) ? &mulx_loops : nullptr;
  }
  return nullptr;
}

}  // namespace bp::detail
