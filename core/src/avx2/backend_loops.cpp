#include "bp/detail/backend_loops.hpp"

#include "avx2/edwards4.hpp"

namespace bp::detail {

namespace {

// Keeps a value alive so the compiler cannot drop the work that made it.
template <class T>
void keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

}  // namespace

BP_AVX2 void avx2_field_mul_loop(size_t iterations) {
  avx2::Fe4 a = avx2::fe4_from_lanes(kD, kD2, kSqrtM1, kOneMinusDSq);
  const avx2::Fe4 b = avx2::fe4_splat(kSqrtAdMinusOne);
  for (size_t i = 0; i < iterations; ++i) {
    avx2::fe4_mul_to(a, a, b);
    keep(a);
  }
}

BP_AVX2 void avx2_field_sq_loop(size_t iterations) {
  avx2::Fe4 a = avx2::fe4_from_lanes(kD, kD2, kSqrtM1, kOneMinusDSq);
  for (size_t i = 0; i < iterations; ++i) {
    avx2::fe4_sq_to(a, a);
    keep(a);
  }
}

BP_AVX2 void avx2_point_add_loop(size_t iterations) {
  avx2::Extended4 p = avx2::to_extended4(kBasepoint);
  const avx2::Cached4 q = avx2::to_cached4(avx2::dbl(p));
  for (size_t i = 0; i < iterations; ++i) {
    avx2::add_to(p, p, q);
    keep(p);
  }
}

BP_AVX2 void avx2_point_dbl_loop(size_t iterations) {
  avx2::Extended4 p = avx2::to_extended4(kBasepoint);
  for (size_t i = 0; i < iterations; ++i) {
    avx2::dbl_to(p, p);
    keep(p);
  }
}

}  // namespace bp::detail
