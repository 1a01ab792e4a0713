// Arithmetic in GF(2^255 - 19), radix 2^51, five unsigned 64-bit limbs.
//
// Every function here is constant time: no branch and no memory index depends on
// a limb. Limbs are kept "weakly reduced" (below 2^52 or so) between operations;
// fe_mul and fe_sq accept limbs up to 2^54, which is what lets the point formulas
// add two or three elements before multiplying without an extra carry pass.
#pragma once

#include <cstdint>
#include <cstring>

// Forced: the compiler otherwise keeps fe_mul out of line in the hot loops, a 1.5x loss.
#define BP_INLINE inline __attribute__((always_inline))

namespace bp::detail {

using u128 = unsigned __int128;

struct Fe {
  uint64_t v[5];
};

inline constexpr uint64_t kLow51 = (uint64_t{1} << 51) - 1;

inline constexpr Fe kFeZero{{0, 0, 0, 0, 0}};
inline constexpr Fe kFeOne{{1, 0, 0, 0, 0}};
inline constexpr Fe kFeTwo{{2, 0, 0, 0, 0}};

// Curve and ristretto255 constants (RFC 9496 section 4.1), as 51-bit limbs.
inline constexpr Fe kD{
    {0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL, 0x739c663a03cbbULL, 0x52036cee2b6ffULL}};
inline constexpr Fe kD2{
    {0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL, 0x6738cc7407977ULL, 0x2406d9dc56dffULL}};
inline constexpr Fe kSqrtM1{
    {0x61b274a0ea0b0ULL, 0xd5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL, 0x78595a6804c9eULL, 0x2b8324804fc1dULL}};
inline constexpr Fe kSqrtAdMinusOne{
    {0x7f6a0497b2e1bULL, 0x1836f0a97afd2ULL, 0x7d747f6be7638ULL, 0x456079e7e6498ULL, 0x376931bf2b834ULL}};
inline constexpr Fe kInvSqrtAMinusD{
    {0xfdaa805d40eaULL, 0x2eb482e57d339ULL, 0x7610274bc58ULL, 0x6510b613dc8ffULL, 0x786c8905cfaffULL}};
inline constexpr Fe kOneMinusDSq{
    {0x409c1945fc176ULL, 0x719abc6a1fc4fULL, 0x1c37f90b20684ULL, 0x6bccca55eedfULL, 0x29072a8b2b3eULL}};
inline constexpr Fe kDMinusOneSq{
    {0x55aaa44ed4d20ULL, 0x59603c3332635ULL, 0x26d3baf4a7928ULL, 0x120a66e6997a9ULL, 0x5968b37af66c2ULL}};

BP_INLINE Fe fe_carry(const Fe& a) {
  Fe r = a;
  uint64_t c;
  c = r.v[0] >> 51;
  r.v[0] &= kLow51;
  r.v[1] += c;
  c = r.v[1] >> 51;
  r.v[1] &= kLow51;
  r.v[2] += c;
  c = r.v[2] >> 51;
  r.v[2] &= kLow51;
  r.v[3] += c;
  c = r.v[3] >> 51;
  r.v[3] &= kLow51;
  r.v[4] += c;
  c = r.v[4] >> 51;
  r.v[4] &= kLow51;
  r.v[0] += c * 19;
  return r;
}

// No carry: inputs below 2^53 give outputs below 2^54, still fine for fe_mul.
BP_INLINE Fe fe_add(const Fe& a, const Fe& b) {
  return Fe{{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3], a.v[4] + b.v[4]}};
}

// Adds 16p first so that no limb underflows for subtrahends below 2^55.
BP_INLINE Fe fe_sub(const Fe& a, const Fe& b) {
  return fe_carry(Fe{{(a.v[0] + 0x7ffffffffffed0ULL) - b.v[0], (a.v[1] + 0x7ffffffffffff0ULL) - b.v[1],
                      (a.v[2] + 0x7ffffffffffff0ULL) - b.v[2], (a.v[3] + 0x7ffffffffffff0ULL) - b.v[3],
                      (a.v[4] + 0x7ffffffffffff0ULL) - b.v[4]}});
}

BP_INLINE Fe fe_neg(const Fe& a) { return fe_sub(kFeZero, a); }

inline Fe fe_mul(const Fe& a, const Fe& b) {
  const uint64_t b1_19 = b.v[1] * 19, b2_19 = b.v[2] * 19, b3_19 = b.v[3] * 19, b4_19 = b.v[4] * 19;
  const uint64_t* x = a.v;
  const uint64_t* y = b.v;
  u128 c0 = (u128)x[0] * y[0] + (u128)x[1] * b4_19 + (u128)x[2] * b3_19 + (u128)x[3] * b2_19 + (u128)x[4] * b1_19;
  u128 c1 = (u128)x[0] * y[1] + (u128)x[1] * y[0] + (u128)x[2] * b4_19 + (u128)x[3] * b3_19 + (u128)x[4] * b2_19;
  u128 c2 = (u128)x[0] * y[2] + (u128)x[1] * y[1] + (u128)x[2] * y[0] + (u128)x[3] * b4_19 + (u128)x[4] * b3_19;
  u128 c3 = (u128)x[0] * y[3] + (u128)x[1] * y[2] + (u128)x[2] * y[1] + (u128)x[3] * y[0] + (u128)x[4] * b4_19;
  u128 c4 = (u128)x[0] * y[4] + (u128)x[1] * y[3] + (u128)x[2] * y[2] + (u128)x[3] * y[1] + (u128)x[4] * y[0];
  Fe r;
  c1 += (uint64_t)(c0 >> 51);
  r.v[0] = (uint64_t)c0 & kLow51;
  c2 += (uint64_t)(c1 >> 51);
  r.v[1] = (uint64_t)c1 & kLow51;
  c3 += (uint64_t)(c2 >> 51);
  r.v[2] = (uint64_t)c2 & kLow51;
  c4 += (uint64_t)(c3 >> 51);
  r.v[3] = (uint64_t)c3 & kLow51;
  const uint64_t carry = (uint64_t)(c4 >> 51);
  r.v[4] = (uint64_t)c4 & kLow51;
  r.v[0] += carry * 19;
  r.v[1] += r.v[0] >> 51;
  r.v[0] &= kLow51;
  return r;
}

inline Fe fe_sq(const Fe& a) {
  const uint64_t* x = a.v;
  const uint64_t x0_2 = x[0] * 2, x1_2 = x[1] * 2;
  const uint64_t x3_19 = x[3] * 19, x4_19 = x[4] * 19;
  u128 c0 = (u128)x[0] * x[0] + (u128)(x[1] * 2) * x4_19 + (u128)(x[2] * 2) * x3_19;
  u128 c1 = (u128)x0_2 * x[1] + (u128)(x[2] * 2) * x4_19 + (u128)x[3] * x3_19;
  u128 c2 = (u128)x0_2 * x[2] + (u128)x[1] * x[1] + (u128)(x[3] * 2) * x4_19;
  u128 c3 = (u128)x0_2 * x[3] + (u128)x1_2 * x[2] + (u128)x[4] * x4_19;
  u128 c4 = (u128)x0_2 * x[4] + (u128)x1_2 * x[3] + (u128)x[2] * x[2];
  Fe r;
  c1 += (uint64_t)(c0 >> 51);
  r.v[0] = (uint64_t)c0 & kLow51;
  c2 += (uint64_t)(c1 >> 51);
  r.v[1] = (uint64_t)c1 & kLow51;
  c3 += (uint64_t)(c2 >> 51);
  r.v[2] = (uint64_t)c2 & kLow51;
  c4 += (uint64_t)(c3 >> 51);
  r.v[3] = (uint64_t)c3 & kLow51;
  const uint64_t carry = (uint64_t)(c4 >> 51);
  r.v[4] = (uint64_t)c4 & kLow51;
  r.v[0] += carry * 19;
  r.v[1] += r.v[0] >> 51;
  r.v[0] &= kLow51;
  return r;
}

// 2·a², used by point doubling.
BP_INLINE Fe fe_sq2(const Fe& a) {
  Fe s = fe_sq(a);
  return fe_add(s, s);
}

BP_INLINE Fe fe_pow2k(Fe a, int k) {
  for (int i = 0; i < k; ++i) a = fe_sq(a);
  return a;
}

// Loads 32 little-endian bytes, ignoring the top bit (as RFC 7748 and RFC 9496 do).
BP_INLINE Fe fe_from_bytes(const uint8_t in[32]) {
  uint64_t w[4];
  std::memcpy(w, in, 32);  // x86-64 and every target we support are little-endian
  Fe r;
  r.v[0] = w[0] & kLow51;
  r.v[1] = ((w[0] >> 51) | (w[1] << 13)) & kLow51;
  r.v[2] = ((w[1] >> 38) | (w[2] << 26)) & kLow51;
  r.v[3] = ((w[2] >> 25) | (w[3] << 39)) & kLow51;
  r.v[4] = (w[3] >> 12) & kLow51;
  return r;
}

// Fully reduces to the canonical representative in [0, p) and stores it.
BP_INLINE void fe_to_bytes(uint8_t out[32], const Fe& a) {
  Fe t = fe_carry(fe_carry(a));
  // q = 1 exactly when t >= p, found by propagating the carry of t + 19.
  uint64_t q = (t.v[0] + 19) >> 51;
  q = (t.v[1] + q) >> 51;
  q = (t.v[2] + q) >> 51;
  q = (t.v[3] + q) >> 51;
  q = (t.v[4] + q) >> 51;
  t.v[0] += 19 * q;
  t.v[1] += t.v[0] >> 51;
  t.v[0] &= kLow51;
  t.v[2] += t.v[1] >> 51;
  t.v[1] &= kLow51;
  t.v[3] += t.v[2] >> 51;
  t.v[2] &= kLow51;
  t.v[4] += t.v[3] >> 51;
  t.v[3] &= kLow51;
  t.v[4] &= kLow51;
  const uint64_t w[4] = {t.v[0] | (t.v[1] << 51), (t.v[1] >> 13) | (t.v[2] << 38), (t.v[2] >> 26) | (t.v[3] << 25),
                         (t.v[3] >> 39) | (t.v[4] << 12)};
  std::memcpy(out, w, 32);
}

// All-ones mask when the byte strings are equal, zero otherwise, without branching.
inline uint64_t ct_eq_bytes_mask(const uint8_t* a, const uint8_t* b, size_t len) {
  uint64_t diff = 0;
  for (size_t i = 0; i < len; ++i) diff |= static_cast<uint64_t>(a[i] ^ b[i]);
  return ((diff | (0 - diff)) >> 63) - 1;
}

BP_INLINE uint64_t fe_eq_mask(const Fe& a, const Fe& b) {
  uint8_t x[32], y[32];
  fe_to_bytes(x, a);
  fe_to_bytes(y, b);
  return ct_eq_bytes_mask(x, y, 32);
}

BP_INLINE uint64_t fe_is_zero_mask(const Fe& a) { return fe_eq_mask(a, kFeZero); }

// All-ones mask when the canonical encoding is odd ("negative" in RFC 9496).
BP_INLINE uint64_t fe_is_negative_mask(const Fe& a) {
  uint8_t x[32];
  fe_to_bytes(x, a);
  return 0 - static_cast<uint64_t>(x[0] & 1);
}

// r = mask ? b : r, for mask all-ones or zero.
BP_INLINE void fe_cmov(Fe& r, const Fe& b, uint64_t mask) {
  for (int i = 0; i < 5; ++i) r.v[i] ^= mask & (r.v[i] ^ b.v[i]);
}

BP_INLINE Fe fe_select(const Fe& if_false, const Fe& if_true, uint64_t mask) {
  Fe r = if_false;
  fe_cmov(r, if_true, mask);
  return r;
}

BP_INLINE Fe fe_cneg(const Fe& a, uint64_t mask) { return fe_select(a, fe_neg(a), mask); }

BP_INLINE Fe fe_abs(const Fe& a) { return fe_cneg(a, fe_is_negative_mask(a)); }

// Returns a^(2^250 - 1) and a^11, shared by inversion and square roots.
BP_INLINE void fe_pow22501(const Fe& a, Fe& t19, Fe& t3) {
  Fe t0 = fe_sq(a);
  Fe t1 = fe_pow2k(t0, 2);
  Fe t2 = fe_mul(a, t1);
  t3 = fe_mul(t0, t2);
  Fe t4 = fe_sq(t3);
  Fe t5 = fe_mul(t2, t4);
  Fe t6 = fe_pow2k(t5, 5);
  Fe t7 = fe_mul(t6, t5);
  Fe t8 = fe_pow2k(t7, 10);
  Fe t9 = fe_mul(t8, t7);
  Fe t10 = fe_pow2k(t9, 20);
  Fe t11 = fe_mul(t10, t9);
  Fe t12 = fe_pow2k(t11, 10);
  Fe t13 = fe_mul(t12, t7);
  Fe t14 = fe_pow2k(t13, 50);
  Fe t15 = fe_mul(t14, t13);
  Fe t16 = fe_pow2k(t15, 100);
  Fe t17 = fe_mul(t16, t15);
  Fe t18 = fe_pow2k(t17, 50);
  t19 = fe_mul(t18, t13);
}

// a^(p-2) = 1/a (and 0 for a = 0).
BP_INLINE Fe fe_invert(const Fe& a) {
  Fe t19, t3;
  fe_pow22501(a, t19, t3);
  return fe_mul(fe_pow2k(t19, 5), t3);
}

// a^((p-5)/8).
BP_INLINE Fe fe_pow_p58(const Fe& a) {
  Fe t19, t3;
  fe_pow22501(a, t19, t3);
  return fe_mul(fe_pow2k(t19, 2), a);
}

// RFC 9496 SQRT_RATIO_M1, in two halves around its one exponentiation so that several
// square roots can share a vectorised exponentiation (RistrettoPoint::decompress_batch):
// fe_sqrt_ratio_base returns u·v^7 (and v^3), the caller raises it to (p-5)/8, and
// fe_sqrt_ratio_finish does the rest.
BP_INLINE Fe fe_sqrt_ratio_base(const Fe& u, const Fe& v, Fe& v3) {
  v3 = fe_mul(fe_sq(v), v);
  const Fe v7 = fe_mul(fe_sq(v3), v);
  return fe_mul(u, v7);
}

// r = sqrt(u/v) or sqrt(i·u/v), non-negative; mask says whether u/v was square.
BP_INLINE uint64_t fe_sqrt_ratio_finish(const Fe& u, const Fe& v, const Fe& v3, const Fe& base_pow_p58, Fe& r_out) {
  Fe r = fe_mul(fe_mul(u, v3), base_pow_p58);
  const Fe check = fe_mul(v, fe_sq(r));
  const Fe neg_u = fe_neg(u);
  const uint64_t correct_sign = fe_eq_mask(check, u);
  const uint64_t flipped_sign = fe_eq_mask(check, neg_u);
  const uint64_t flipped_sign_i = fe_eq_mask(check, fe_mul(neg_u, kSqrtM1));
  fe_cmov(r, fe_mul(r, kSqrtM1), flipped_sign | flipped_sign_i);
  r_out = fe_abs(r);
  return correct_sign | flipped_sign;
}

BP_INLINE uint64_t fe_sqrt_ratio_m1(const Fe& u, const Fe& v, Fe& r_out) {
  Fe v3;
  const Fe base = fe_sqrt_ratio_base(u, v, v3);
  return fe_sqrt_ratio_finish(u, v, v3, fe_pow_p58(base), r_out);
}

BP_INLINE void fe_wipe(Fe& a) {
  volatile uint64_t* p = a.v;
  for (int i = 0; i < 5; ++i) p[i] = 0;
}

}  // namespace bp::detail
