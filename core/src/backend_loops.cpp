#include "bp/detail/backend_loops.hpp"

#include "avx2/edwards4.hpp"
#include "ifma/ifma.hpp"
#include "msm_kernels.hpp"

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
#include "four_lane_loops.inc"
#undef BP_LANES_FN
}  // namespace
}  // namespace avx2

namespace ifma {
namespace {
#define BP_LANES_FN BP_IFMA
#include "four_lane_loops.inc"
#undef BP_LANES_FN
}  // namespace
}  // namespace ifma

const FourLaneLoops* four_lane_loops(Backend backend) {
  static const FourLaneLoops avx2_loops{&avx2::field_mul_loop, &avx2::field_sq_loop, &avx2::point_add_loop,
                                        &avx2::point_dbl_loop};
  static const FourLaneLoops ifma_loops{&ifma::field_mul_loop, &ifma::field_sq_loop, &ifma::point_add_loop,
                                        &ifma::point_dbl_loop};
  switch (backend) {
    case Backend::portable: return nullptr;
    case Backend::avx2: return backend_supported(backend) ? &avx2_loops : nullptr;
    // The hardware kernels, not emulated ones a test may have installed.
    case Backend::avx512ifma: return ifma_msm_kernels() == &ifma::kMsmKernels ? &ifma_loops : nullptr;
  }
  return nullptr;
}

}  // namespace bp::detail
