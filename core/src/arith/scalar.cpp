#include "bp/scalar.hpp"

#include <sodium.h>

#include <cstring>
#include <x86intrin.h>  // _addcarry_u64: plain adc, any x86-64
#include <vector>

#include "bp/random.hpp"

namespace bp {
namespace {

using u128 = unsigned __int128;

constexpr uint64_t kL[4] = {0x5812631a5cf5d3edULL, 0x14def9dea2f79cd6ULL, 0, 0x1000000000000000ULL};
// 2^256 mod l, (2^256)^2 mod l and (2^256)^3 mod l: conversions into Montgomery form.
constexpr uint64_t kR1[4] = {0xd6ec31748d98951dULL, 0xc6ef5bf4737dcf70ULL, 0xfffffffffffffffeULL,
                             0x0fffffffffffffffULL};
constexpr uint64_t kR2[4] = {0xa40611e3449c0f01ULL, 0xd00e1ba768859347ULL, 0xceec73d217f5be65ULL,
                             0x0399411b7c309a3dULL};
constexpr uint64_t kR3[4] = {0x2a9e49687b83a2dbULL, 0x278324e6aef7f3ecULL, 0x8065dc6c04ec5b65ULL,
                             0x0e530b773599cec7ULL};
constexpr uint64_t kLInvNeg = 0xd2b51da312547e1bULL;  // -1/l mod 2^64

// r = t - l if t >= l, else t; t has a fifth limb for the carry. Branch free.
inline __attribute__((always_inline)) void reduce_once(uint64_t r[4], const uint64_t t[5]) {
  uint64_t d[4];
  uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 diff = (u128)t[i] - kL[i] - borrow;
    d[i] = (uint64_t)diff;
    borrow = (uint64_t)(diff >> 64) & 1;
  }
  const uint64_t underflow = (uint64_t)(((u128)t[4] - borrow) >> 64) & 1;  // 1 when t < l
  const uint64_t keep_t = 0 - underflow;
  for (int i = 0; i < 4; ++i) r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

// Montgomery product a·b/2^256 mod l for a < 2^256 and b < l (result < 2l before the final step).
// One CIOS round: t = (t + x·b + m·l) / 2^64 with m chosen so the division is exact.
// Products through u128 (one mul each), sums through explicit add-with-carry chains, and
// the shape of l used (limb 2 is zero, limb 3 is 2^60: a shift, not a multiplication):
// written as a loop over arrays with u128 sums, GCC spilled and took twice as long.
inline __attribute__((always_inline)) void cios_round(uint64_t& t0, uint64_t& t1, uint64_t& t2, uint64_t& t3,
                                                      uint64_t& t4, uint64_t x, const uint64_t b[4]) {
  using ull = unsigned long long;
  ull r0 = t0, r1 = t1, r2 = t2, r3 = t3, r4 = t4, r5 = 0;
  const u128 p0 = (u128)x * b[0], p1 = (u128)x * b[1], p2 = (u128)x * b[2], p3 = (u128)x * b[3];
  unsigned char c = _addcarry_u64(0, r0, (uint64_t)p0, &r0);
  c = _addcarry_u64(c, r1, (uint64_t)p1, &r1);
  c = _addcarry_u64(c, r2, (uint64_t)p2, &r2);
  c = _addcarry_u64(c, r3, (uint64_t)p3, &r3);
  c = _addcarry_u64(c, r4, 0, &r4);
  r5 = c;
  c = _addcarry_u64(0, r1, (uint64_t)(p0 >> 64), &r1);
  c = _addcarry_u64(c, r2, (uint64_t)(p1 >> 64), &r2);
  c = _addcarry_u64(c, r3, (uint64_t)(p2 >> 64), &r3);
  c = _addcarry_u64(c, r4, (uint64_t)(p3 >> 64), &r4);
  r5 += c;

  const uint64_t m = r0 * kLInvNeg;
  const u128 q0 = (u128)m * kL[0], q1 = (u128)m * kL[1];
  ull discard;
  c = _addcarry_u64(0, r0, (uint64_t)q0, &discard);  // zero by the choice of m
  c = _addcarry_u64(c, r1, (uint64_t)q1, &r1);
  c = _addcarry_u64(c, r2, 0, &r2);        // kL[2] == 0
  c = _addcarry_u64(c, r3, m << 60, &r3);  // kL[3] == 2^60
  c = _addcarry_u64(c, r4, 0, &r4);
  r5 += c;
  c = _addcarry_u64(0, r1, (uint64_t)(q0 >> 64), &r1);
  c = _addcarry_u64(c, r2, (uint64_t)(q1 >> 64), &r2);
  c = _addcarry_u64(c, r3, 0, &r3);
  c = _addcarry_u64(c, r4, m >> 4, &r4);
  r5 += c;
  t0 = r1;
  t1 = r2;
  t2 = r3;
  t3 = r4;
  t4 = r5;
}

void mont_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
  static_assert(kL[2] == 0 && kL[3] == uint64_t{1} << 60, "cios_round relies on the shape of l");
  uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
  cios_round(t0, t1, t2, t3, t4, a[0], b);
  cios_round(t0, t1, t2, t3, t4, a[1], b);
  cios_round(t0, t1, t2, t3, t4, a[2], b);
  cios_round(t0, t1, t2, t3, t4, a[3], b);
  const uint64_t t[5] = {t0, t1, t2, t3, t4};
  reduce_once(r, t);
}

void load_le(uint64_t out[4], const uint8_t* in) { std::memcpy(out, in, 32); }

}  // namespace

Scalar Scalar::one() {
  Scalar s;
  std::memcpy(s.m_, kR1, sizeof s.m_);
  return s;
}

Scalar Scalar::from_u64(uint64_t v) {
  const uint64_t a[4] = {v, 0, 0, 0};
  Scalar s;
  mont_mul(s.m_, a, kR2);
  return s;
}

std::optional<Scalar> Scalar::from_canonical_bytes(std::span<const uint8_t, 32> bytes) {
  uint64_t a[5];
  load_le(a, bytes.data());
  a[4] = 0;
  // Canonical exactly when a - l borrows.
  uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 diff = (u128)a[i] - kL[i] - borrow;
    borrow = (uint64_t)(diff >> 64) & 1;
  }
  if (!borrow) return std::nullopt;  // reveals only validity, which the caller learns anyway
  Scalar s;
  mont_mul(s.m_, a, kR2);
  sodium_memzero(a, sizeof a);
  return s;
}

Scalar Scalar::from_bytes_mod_order(std::span<const uint8_t, 32> bytes) {
  uint64_t a[4];
  load_le(a, bytes.data());
  Scalar s;
  mont_mul(s.m_, a, kR2);
  sodium_memzero(a, sizeof a);
  return s;
}

Scalar Scalar::from_bytes_mod_order_wide(std::span<const uint8_t, 64> bytes) {
  // x = lo + hi·2^256, so x·R = lo·R + hi·R² = mont(lo, R²) + mont(hi, R³).
  uint64_t lo[4], hi[4];
  load_le(lo, bytes.data());
  load_le(hi, bytes.data() + 32);
  Scalar a, b;
  mont_mul(a.m_, lo, kR2);
  mont_mul(b.m_, hi, kR3);
  sodium_memzero(lo, sizeof lo);
  sodium_memzero(hi, sizeof hi);
  Scalar r = a + b;
  a.wipe();
  b.wipe();
  return r;
}

Scalar Scalar::random(RandomSource& rng) {
  uint8_t wide[64];
  rng.fill(wide);
  Scalar s = from_bytes_mod_order_wide(std::span<const uint8_t, 64>(wide, 64));
  sodium_memzero(wide, sizeof wide);
  return s;
}

Scalar::Bytes Scalar::to_bytes() const {
  const uint64_t one[4] = {1, 0, 0, 0};
  uint64_t plain[4];
  mont_mul(plain, m_, one);
  Bytes out;
  std::memcpy(out.data(), plain, 32);
  sodium_memzero(plain, sizeof plain);
  return out;
}

// Addition and subtraction: carry chains through the add/subtract-with-carry intrinsics,
// and the final select kept out of GCC's vectorizer, which paired the limbs in SSE
// registers through the stack; the store-forwarding stalls made an addition mod l cost
// 20 ns instead of 12 (6% of a batch verification).
#if defined(__GNUC__) && !defined(__clang__)
#define BP_SCALAR_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define BP_SCALAR_NO_VECTORIZE
#endif

BP_SCALAR_NO_VECTORIZE Scalar Scalar::operator+(const Scalar& o) const {
  unsigned long long t[5];
  unsigned char carry = _addcarry_u64(0, m_[0], o.m_[0], &t[0]);
  carry = _addcarry_u64(carry, m_[1], o.m_[1], &t[1]);
  carry = _addcarry_u64(carry, m_[2], o.m_[2], &t[2]);
  carry = _addcarry_u64(carry, m_[3], o.m_[3], &t[3]);
  t[4] = carry;
  const uint64_t limbs[5] = {t[0], t[1], t[2], t[3], t[4]};
  Scalar r;
  reduce_once(r.m_, limbs);
  return r;
}

BP_SCALAR_NO_VECTORIZE Scalar Scalar::operator-(const Scalar& o) const {
  unsigned long long d[4];
  unsigned char borrow = _subborrow_u64(0, m_[0], o.m_[0], &d[0]);
  borrow = _subborrow_u64(borrow, m_[1], o.m_[1], &d[1]);
  borrow = _subborrow_u64(borrow, m_[2], o.m_[2], &d[2]);
  borrow = _subborrow_u64(borrow, m_[3], o.m_[3], &d[3]);
  // Add l back when the subtraction wrapped.
  const uint64_t mask = 0 - static_cast<uint64_t>(borrow);
  Scalar r;
  unsigned long long sum[4];
  unsigned char carry = _addcarry_u64(0, d[0], kL[0] & mask, &sum[0]);
  carry = _addcarry_u64(carry, d[1], kL[1] & mask, &sum[1]);
  carry = _addcarry_u64(carry, d[2], kL[2] & mask, &sum[2]);
  _addcarry_u64(carry, d[3], kL[3] & mask, &sum[3]);
  for (int i = 0; i < 4; ++i) r.m_[i] = sum[i];
  return r;
}

Scalar Scalar::operator*(const Scalar& o) const {
  Scalar r;
  mont_mul(r.m_, m_, o.m_);
  return r;
}

Scalar Scalar::operator-() const { return Scalar() - *this; }

Scalar Scalar::invert() const {
  // l - 2, most significant bit first; the exponent is public so its bits may steer branches.
  static constexpr uint64_t kExp[4] = {kL[0] - 2, kL[1], kL[2], kL[3]};
  Scalar r = one();
  for (int i = 252; i >= 0; --i) {
    r = r.square();
    if ((kExp[i / 64] >> (i % 64)) & 1) r = r * *this;
  }
  return r;
}

Scalar Scalar::pow_vartime(uint64_t e) const {
  Scalar r = one();
  Scalar base = *this;
  while (e) {
    if (e & 1) r = r * base;
    base = base.square();
    e >>= 1;
  }
  return r;
}

namespace {

// Montgomery's trick: every element inverted in place with one inversion.
template <class Invert>
Scalar batch_invert_with(std::span<Scalar> xs, Invert invert) {
  if (xs.empty()) return Scalar::one();
  // prefix[i] = x_0 ... x_{i-1}
  std::vector<Scalar> prefix(xs.size());
  Scalar acc = Scalar::one();
  for (size_t i = 0; i < xs.size(); ++i) {
    prefix[i] = acc;
    acc = acc * xs[i];
  }
  const Scalar all_inv = invert(acc);
  Scalar running = all_inv;
  for (size_t i = xs.size(); i-- > 0;) {
    const Scalar inv = running * prefix[i];
    running = running * xs[i];
    xs[i] = inv;
  }
  return all_inv;
}

// Plain (not Montgomery) residues below l, four little-endian words: the steps of the
// binary extended Euclidean algorithm.
bool words_equal_one(const uint64_t x[4]) { return x[0] == 1 && (x[1] | x[2] | x[3]) == 0; }

bool words_less(const uint64_t a[4], const uint64_t b[4]) {
  for (int i = 3; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}

// a -= b, returning the borrow.
uint64_t words_sub(uint64_t a[4], const uint64_t b[4]) {
  unsigned char borrow = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned long long d;
    borrow = _subborrow_u64(borrow, a[i], b[i], &d);
    a[i] = d;
  }
  return borrow;
}

void words_add_l(uint64_t a[4]) {
  unsigned char carry = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned long long s;
    carry = _addcarry_u64(carry, a[i], kL[i], &s);
    a[i] = s;
  }
}

void words_shr1(uint64_t a[4]) {
  for (int i = 0; i < 3; ++i) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
  a[3] >>= 1;
}

// x/2 mod l: x + l is even when x is odd, and below 2^254, so nothing overflows.
void words_half_mod_l(uint64_t x[4]) {
  if (x[0] & 1) words_add_l(x);
  words_shr1(x);
}

// x -= y mod l.
void words_sub_mod_l(uint64_t x[4], const uint64_t y[4]) {
  if (words_sub(x, y)) words_add_l(x);
}

}  // namespace

Scalar Scalar::invert_vartime() const {
  static constexpr uint64_t kOne[4] = {1, 0, 0, 0};
  if (is_zero()) return Scalar();
  // Invariants: x1·a = u and x2·a = v (mod l), with u, v shrinking to gcd(a, l) = 1.
  uint64_t u[4], v[4] = {kL[0], kL[1], kL[2], kL[3]}, x1[4] = {1, 0, 0, 0}, x2[4] = {0, 0, 0, 0};
  mont_mul(u, m_, kOne);  // out of Montgomery form
  while (!words_equal_one(u) && !words_equal_one(v)) {
    while ((u[0] & 1) == 0) {
      words_shr1(u);
      words_half_mod_l(x1);
    }
    while ((v[0] & 1) == 0) {
      words_shr1(v);
      words_half_mod_l(x2);
    }
    if (words_less(u, v)) {
      words_sub(v, u);
      words_sub_mod_l(x2, x1);
    } else {
      words_sub(u, v);
      words_sub_mod_l(x1, x2);
    }
  }
  Scalar r;
  mont_mul(r.m_, words_equal_one(u) ? x1 : x2, kR2);  // back into Montgomery form
  return r;
}

Scalar Scalar::batch_invert(std::span<Scalar> xs) {
  return batch_invert_with(xs, [](const Scalar& x) { return x.invert(); });
}

Scalar Scalar::batch_invert_vartime(std::span<Scalar> xs) {
  return batch_invert_with(xs, [](const Scalar& x) { return x.invert_vartime(); });
}

bool Scalar::is_zero() const { return *this == Scalar(); }

bool operator==(const Scalar& a, const Scalar& b) {
  uint64_t diff = 0;
  for (int i = 0; i < 4; ++i) diff |= a.m_[i] ^ b.m_[i];
  return diff == 0;
}

Scalar Scalar::select(const Scalar& a, const Scalar& b, uint64_t mask) {
  Scalar r;
  for (int i = 0; i < 4; ++i) r.m_[i] = a.m_[i] ^ (mask & (a.m_[i] ^ b.m_[i]));
  return r;
}

void Scalar::wipe() { sodium_memzero(m_, sizeof m_); }

Scalar sum_of_powers(const Scalar& x, size_t n) {
  if (n != 0 && (n & (n - 1)) == 0) {
    // A power of two (every n here): 1 + ... + x^(2k-1) = (1 + ... + x^(k-1))·(1 + x^k),
    // 2·log2(n) multiplications instead of n.
    Scalar sum = Scalar::one(), power = x;  // the sum up to x^(k-1), and x^k, for k = 1
    for (size_t k = 1; k < n; k *= 2) {
      sum *= Scalar::one() + power;
      power = power.square();
    }
    return sum;
  }
  Scalar sum, power = Scalar::one();
  for (size_t i = 0; i < n; ++i) {
    sum += power;
    power *= x;
  }
  return sum;
}

}  // namespace bp
