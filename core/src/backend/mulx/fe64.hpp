// Arithmetic in GF(2^255 - 19), radix 2^64: four 64-bit limbs, multiplied with BMI2's
// mulx and summed on ADX's two independent carry chains (adcx uses only CF, adox only
// OF), so the low and high halves of each row of partial products add in parallel.
//
// An element is any 256-bit value; it is reduced modulo p only when it leaves this
// representation (fe_from_fe64 and then fe_to_bytes). Every operation takes and returns
// such values, so there are no limb bounds to track: the price is a carry chain on
// every addition, which radix 2^51 avoids, against 16 multiplications per product
// instead of 25.
//
// Every function is constant time: straight-line code, no branch and no memory index
// depends on a limb. The instructions are written out (inline assembly) because
// compilers do not interleave two carry chains from intrinsics; callers must run only
// where the CPU has BMI2 and ADX (mulx_msm_kernels(), backend.cpp).
#pragma once

#include <cstdint>

#include "bp/detail/field.hpp"

namespace bp::detail::mulx {

struct Fe64 {
  uint64_t v[4];
};

// From radix 2^51 limbs that are carried (each below 2^52: fe_carry's output, or a table
// entry, which is stored carried), so the value is below 2^256.
constexpr Fe64 fe64_from_carried(const Fe& a) {
  u128 acc = a.v[0] + (u128{a.v[1]} << 51);
  Fe64 r{};
  r.v[0] = static_cast<uint64_t>(acc);
  acc = (acc >> 64) + (u128{a.v[2]} << 38);
  r.v[1] = static_cast<uint64_t>(acc);
  acc = (acc >> 64) + (u128{a.v[3]} << 25);
  r.v[2] = static_cast<uint64_t>(acc);
  acc = (acc >> 64) + (u128{a.v[4]} << 12);
  r.v[3] = static_cast<uint64_t>(acc);
  return r;
}

BP_INLINE Fe64 fe64_from_fe(const Fe& a) { return fe64_from_carried(fe_carry(a)); }

// Back to radix 2^51: the top limb takes 52 bits, within what the portable operations
// accept.
BP_INLINE Fe fe_from_fe64(const Fe64& a) {
  return Fe{{a.v[0] & kLow51, ((a.v[0] >> 51) | (a.v[1] << 13)) & kLow51, ((a.v[1] >> 38) | (a.v[2] << 26)) & kLow51,
             ((a.v[2] >> 25) | (a.v[3] << 39)) & kLow51, a.v[3] >> 12}};
}

inline constexpr Fe64 kFe64Zero{{0, 0, 0, 0}};
inline constexpr Fe64 kFe64One{{1, 0, 0, 0}};
inline constexpr Fe64 kFe64Two{{2, 0, 0, 0}};
inline constexpr Fe64 kFe64D2 = fe64_from_carried(kD2);

// The 512-bit product in t0..t7 becomes lo + 38·hi (2^256 = 38 mod p), and the carry
// out of that, below 40, is folded once more; a last carry can only happen when the
// limbs are then below 38, so adding 38 to the bottom limb cannot overflow.
#define BP_FE64_REDUCE                                   \
  "movl $38, %%edx\n\t"                                  \
  "xorl %k[lo], %k[lo]\n\t"                              \
  "mulxq %[t4], %[lo], %[t4]\n\t" /* t4 read, then hi */ \
  "adcxq %[lo], %[t0]\n\t"                               \
  "adoxq %[t4], %[t1]\n\t"                               \
  "mulxq %[t5], %[lo], %[t5]\n\t"                        \
  "adcxq %[lo], %[t1]\n\t"                               \
  "adoxq %[t5], %[t2]\n\t"                               \
  "mulxq %[t6], %[lo], %[t6]\n\t"                        \
  "adcxq %[lo], %[t2]\n\t"                               \
  "adoxq %[t6], %[t3]\n\t"                               \
  "mulxq %[t7], %[lo], %[t4]\n\t"                        \
  "adcxq %[lo], %[t3]\n\t"                               \
  "movl $0, %k[lo]\n\t" /* flags kept */                 \
  "adoxq %[lo], %[t4]\n\t"                               \
  "adcxq %[lo], %[t4]\n\t"                               \
  "imulq $38, %[t4], %[t4]\n\t"                          \
  "addq %[t4], %[t0]\n\t"                                \
  "adcq %[lo], %[t1]\n\t"                                \
  "adcq %[lo], %[t2]\n\t"                                \
  "adcq %[lo], %[t3]\n\t"                                \
  "sbbq %[lo], %[lo]\n\t"                                \
  "andq $38, %[lo]\n\t"                                  \
  "addq %[lo], %[t0]\n\t"

// One row of the schoolbook product, i = 1, 2, 3: t[i..i+4] += a[i]·b, low halves of
// the four products on the carry chain, high halves on the overflow chain. The row's sum
// fits: after row i the partial product is below 2^(64·(i+5)). t0 is parked in memory
// meanwhile and its register holds the high halves, so that the whole product needs ten
// registers besides the operands' addresses (sanitizer builds keep a frame pointer).
#define BP_FE64_ROW(i, ti, ti1, ti2, ti3, ti4) \
  "movq 8*" #i                                 \
  "(%[a]), %%rdx\n\t"                          \
  "xorl %k[lo], %k[lo]\n\t"                    \
  "mulxq 0(%[b]), %[lo], %[t0]\n\t"            \
  "adcxq %[lo], %[" #ti                        \
  "]\n\t"                                      \
  "adoxq %[t0], %[" #ti1                       \
  "]\n\t"                                      \
  "mulxq 8(%[b]), %[lo], %[t0]\n\t"            \
  "adcxq %[lo], %[" #ti1                       \
  "]\n\t"                                      \
  "adoxq %[t0], %[" #ti2                       \
  "]\n\t"                                      \
  "mulxq 16(%[b]), %[lo], %[t0]\n\t"           \
  "adcxq %[lo], %[" #ti2                       \
  "]\n\t"                                      \
  "adoxq %[t0], %[" #ti3                       \
  "]\n\t"                                      \
  "mulxq 24(%[b]), %[lo], %[" #ti4             \
  "]\n\t"                                      \
  "adcxq %[lo], %[" #ti3                       \
  "]\n\t"                                      \
  "movl $0, %k[lo]\n\t"                        \
  "adoxq %[lo], %[" #ti4                       \
  "]\n\t"                                      \
  "adcxq %[lo], %[" #ti4 "]\n\t"

BP_INLINE Fe64 fe64_mul(const Fe64& a, const Fe64& b) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, parked;
  asm("movq 0(%[a]), %%rdx\n\t"
      "mulxq 0(%[b]), %[t0], %[t1]\n\t"
      "movq %[t0], %[parked]\n\t"
      "mulxq 8(%[b]), %[lo], %[t2]\n\t"
      "addq %[lo], %[t1]\n\t"
      "mulxq 16(%[b]), %[lo], %[t3]\n\t"
      "adcq %[lo], %[t2]\n\t"
      "mulxq 24(%[b]), %[lo], %[t4]\n\t"
      "adcq %[lo], %[t3]\n\t"
      "adcq $0, %[t4]\n\t"                // row 0 done: t0..t4 = a0·b
      BP_FE64_ROW(1, t1, t2, t3, t4, t5)  //
      BP_FE64_ROW(2, t2, t3, t4, t5, t6)  //
      BP_FE64_ROW(3, t3, t4, t5, t6, t7)  //
      "movq %[parked], %[t0]\n\t"         //
      BP_FE64_REDUCE
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6),
        [t7] "=&r"(t7), [lo] "=&r"(lo), [parked] "=m"(parked)
      : [a] "r"(a.v), [b] "r"(b.v)
      : "rdx", "cc", "memory");  // "memory": the limbs are read through a and b
  return Fe64{{t0, t1, t2, t3}};
}

// The six products a_i·a_j (i < j) once, doubled by one shift through the carry, then
// the four squares a_i² on the diagonal: 10 multiplications instead of 16.
BP_INLINE Fe64 fe64_sq(const Fe64& a) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi;
  asm("movq 0(%[a]), %%rdx\n\t"
      "mulxq 8(%[a]), %[t1], %[t2]\n\t"   // a0·a1 at limb 1
      "mulxq 16(%[a]), %[lo], %[t3]\n\t"  // a0·a2 at limb 2
      "addq %[lo], %[t2]\n\t"
      "mulxq 24(%[a]), %[lo], %[t4]\n\t"  // a0·a3 at limb 3
      "adcq %[lo], %[t3]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq 24(%[a]), %[lo], %[t5]\n\t"  // a1·a3 at limb 4
      "adcq %[lo], %[t4]\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq 24(%[a]), %[lo], %[t6]\n\t"  // a2·a3 at limb 5
      "adcq %[lo], %[t5]\n\t"
      "adcq $0, %[t6]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"  // a1·a2 at limb 3
      "addq %[lo], %[t3]\n\t"
      "adcq %[hi], %[t4]\n\t"
      "adcq $0, %[t5]\n\t"
      "adcq $0, %[t6]\n\t"  // the cross sum is below 2^448: no carry out of t6
      "xorl %k[t7], %k[t7]\n\t"
      "addq %[t1], %[t1]\n\t"
      "adcq %[t2], %[t2]\n\t"
      "adcq %[t3], %[t3]\n\t"
      "adcq %[t4], %[t4]\n\t"
      "adcq %[t5], %[t5]\n\t"
      "adcq %[t6], %[t6]\n\t"
      "adcq %[t7], %[t7]\n\t"
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[t0], %[lo]\n\t"
      "addq %[lo], %[t1]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcq %[lo], %[t2]\n\t"
      "adcq %[hi], %[t3]\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcq %[lo], %[t4]\n\t"
      "adcq %[hi], %[t5]\n\t"
      "movq 24(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcq %[lo], %[t6]\n\t"
      "adcq %[hi], %[t7]\n\t"  // a² < 2^512: no carry out
      BP_FE64_REDUCE
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6),
        [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [a] "r"(a.v)
      : "rdx", "cc", "memory");
  return Fe64{{t0, t1, t2, t3}};
}

#undef BP_FE64_ROW
#undef BP_FE64_REDUCE

// a ± b, one template for both: `first` and `chain` are addq/adcq or subq/sbbq. A carry
// (or borrow) out of the top limb is worth +38 (or -38) and is folded in twice at most:
// the second time the limbs are below 38 (or above 2^256 - 38), so it cannot carry again.
#define BP_FE64_ADD_OR_SUB(first, chain)                                                                  \
  uint64_t r0 = a.v[0], r1 = a.v[1], r2 = a.v[2], r3 = a.v[3], m;                                         \
  asm(first " %[b0], %[r0]\n\t" chain " %[b1], %[r1]\n\t" chain " %[b2], %[r2]\n\t" chain                 \
            " %[b3], %[r3]\n\t"                                                                           \
            "sbbq %[m], %[m]\n\tandq $38, %[m]\n\t" first " %[m], %[r0]\n\t" chain " $0, %[r1]\n\t" chain \
            " $0, %[r2]\n\t" chain                                                                        \
            " $0, %[r3]\n\t"                                                                              \
            "sbbq %[m], %[m]\n\tandq $38, %[m]\n\t" first " %[m], %[r0]\n\t"                              \
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [m] "=&r"(m)                      \
      : [b0] "r"(b.v[0]), [b1] "r"(b.v[1]), [b2] "r"(b.v[2]), [b3] "r"(b.v[3])                            \
      : "cc");                                                                                            \
  return Fe64 {                                                                                           \
    { r0, r1, r2, r3 }                                                                                    \
  }

BP_INLINE Fe64 fe64_add(const Fe64& a, const Fe64& b) { BP_FE64_ADD_OR_SUB("addq", "adcq"); }

BP_INLINE Fe64 fe64_sub(const Fe64& a, const Fe64& b) { BP_FE64_ADD_OR_SUB("subq", "sbbq"); }

#undef BP_FE64_ADD_OR_SUB

BP_INLINE Fe64 fe64_neg(const Fe64& a) { return fe64_sub(kFe64Zero, a); }

}  // namespace bp::detail::mulx
