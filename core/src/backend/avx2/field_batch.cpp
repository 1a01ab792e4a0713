#include "backend/avx2/field_batch.hpp"

#include "backend/avx2/fe4.hpp"

namespace bp::detail::avx2 {

namespace {

BP_AVX2 void pow2k(Fe4& out, const Fe4& a, int k) {
  fe4_sq_to(out, a);
  for (int i = 1; i < k; ++i) fe4_sq_to(out, out);
}

}  // namespace

// The addition chain of fe_pow22501 and fe_pow_p58 (field.hpp), in four lanes.
BP_AVX2 void pow_p58_x4(const Fe in[4], Fe out[4]) {
  const Fe4 a = fe4_from_lanes(fe_carry(in[0]), fe_carry(in[1]), fe_carry(in[2]), fe_carry(in[3]));
  Fe4 t0, t1, t2, t3, t4, t5, t7, t9, t11, t13, t15, t17, tmp;
  fe4_sq_to(t0, a);
  pow2k(t1, t0, 2);
  fe4_mul_to(t2, a, t1);
  fe4_mul_to(t3, t0, t2);
  fe4_sq_to(t4, t3);
  fe4_mul_to(t5, t2, t4);
  pow2k(tmp, t5, 5);
  fe4_mul_to(t7, tmp, t5);
  pow2k(tmp, t7, 10);
  fe4_mul_to(t9, tmp, t7);
  pow2k(tmp, t9, 20);
  fe4_mul_to(t11, tmp, t9);
  pow2k(tmp, t11, 10);
  fe4_mul_to(t13, tmp, t7);
  pow2k(tmp, t13, 50);
  fe4_mul_to(t15, tmp, t13);
  pow2k(tmp, t15, 100);
  fe4_mul_to(t17, tmp, t15);
  pow2k(tmp, t17, 50);
  fe4_mul_to(tmp, tmp, t13);  // a^(2^250 - 1)
  pow2k(tmp, tmp, 2);
  fe4_mul_to(tmp, tmp, a);
  fe4_to_lanes(tmp, out);
}

}  // namespace bp::detail::avx2
