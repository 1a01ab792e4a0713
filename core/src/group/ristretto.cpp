// ristretto255 encoding, decoding and the hash-to-group map, following RFC 9496 section 4.3
// step by step (the variable names are the RFC's).
#include "bp/ristretto.hpp"

#include <vector>

#include "backend/avx2/field_batch.hpp"
#include "backend/cpu_features.hpp"
#include "backend/ifma/field_batch_ifma.hpp"
#include "bp/detail/op_tally.hpp"

namespace bp {

using namespace detail;

bool CompressedRistretto::is_identity_encoding() const {
  uint8_t acc = 0;
  for (uint8_t b : bytes) acc |= b;
  return acc == 0;
}

namespace {

// RFC 9496 DECODE up to its square root, and from there on (decompress_batch shares the
// square root's exponentiation between four encodings).
struct Decoding {
  Fe s, u1, u2, v, v_u2_sqr, v3, sqrt_base;
  uint64_t canonical, s_negative;
};

Decoding decode_start(const CompressedRistretto& c) {
  if (detail::OpTally* tally = detail::op_tally()) ++tally->decompressions;
  Decoding d;
  d.s = fe_from_bytes(c.bytes.data());
  // Canonical: re-encoding gives the same bytes (this also rejects a set top bit); and s non-negative.
  uint8_t reencoded[32];
  fe_to_bytes(reencoded, d.s);
  d.canonical = ct_eq_bytes_mask(reencoded, c.bytes.data(), 32);
  d.s_negative = fe_is_negative_mask(d.s);
  const Fe ss = fe_sq(d.s);
  d.u1 = fe_sub(kFeOne, ss);
  d.u2 = fe_add(kFeOne, ss);
  const Fe u2_sqr = fe_sq(d.u2);
  d.v = fe_sub(fe_neg(fe_mul(kD, fe_sq(d.u1))), u2_sqr);
  d.v_u2_sqr = fe_mul(d.v, u2_sqr);
  d.sqrt_base = fe_sqrt_ratio_base(kFeOne, d.v_u2_sqr, d.v3);
  return d;
}

std::optional<RistrettoPoint> decode_finish(const Decoding& d, const Fe& sqrt_base_pow_p58) {
  Fe invsqrt;
  const uint64_t was_square = fe_sqrt_ratio_finish(kFeOne, d.v_u2_sqr, d.v3, sqrt_base_pow_p58, invsqrt);
  const Fe den_x = fe_mul(invsqrt, d.u2);
  const Fe den_y = fe_mul(fe_mul(invsqrt, den_x), d.v);
  const Fe x = fe_abs(fe_mul(fe_add(d.s, d.s), den_x));
  const Fe y = fe_mul(d.u1, den_y);
  const Fe t = fe_mul(x, y);
  const uint64_t ok = d.canonical & ~d.s_negative & was_square & ~fe_is_negative_mask(t) & ~fe_is_zero_mask(y);
  if (!ok) return std::nullopt;
  return RistrettoPoint(EdwardsPoint{x, y, kFeOne, t});
}

}  // namespace

std::optional<RistrettoPoint> RistrettoPoint::decompress(const CompressedRistretto& c) {
  const Decoding d = decode_start(c);
  return decode_finish(d, fe_pow_p58(d.sqrt_base));
}

namespace {

// One Lanes-way exponentiation for items first .. first + used - 1 (used <= Lanes; the
// spare lanes repeat the last base and are dropped). start(i, lane) returns item i's base,
// keeping what finish needs in the caller's slot lane; finish(i, lane, power) completes it.
template <size_t Lanes, class Pow, class Start, class Finish>
void pow_p58_group(size_t first, size_t used, Pow pow, Start& start, Finish& finish) {
  Fe bases[Lanes], powers[Lanes];
  for (size_t lane = 0; lane < used; ++lane) bases[lane] = start(first + lane, lane);
  for (size_t lane = used; lane < Lanes; ++lane) bases[lane] = bases[used - 1];
  pow(bases, powers);
  for (size_t lane = 0; lane < used; ++lane) finish(first + lane, lane, powers[lane]);
}

// The exponentiations of n items (square roots inside decoding and encoding) in the widest
// groups the CPU has, whichever backend runs the rest: sixteen (or eight) at a time on
// AVX-512 IFMA, four on AVX2 (which beats one at a time even on Zen 1, where the portable
// backend wins the multiscalar multiplications; docs/performance.md). A lone last item runs
// alone(i) rather than in padded lanes. Slots: start and finish see lanes below 16.
template <class Start, class Finish, class Alone>
void grouped_pow_p58(size_t n, Start&& start, Finish&& finish, Alone&& alone) {
  size_t first = 0;
  if (detail::cpu_executes_ifma()) {
    for (; first + 9 <= n; first += 16)
      pow_p58_group<16>(first, std::min<size_t>(16, n - first), ifma::pow_p58_x16, start, finish);
    for (; first + 2 <= n; first += 8)
      pow_p58_group<8>(first, std::min<size_t>(8, n - first), ifma::pow_p58_x8, start, finish);
  } else if (detail::cpu_executes_avx2()) {
    for (; first + 2 <= n; first += 4)
      pow_p58_group<4>(first, std::min<size_t>(4, n - first), avx2::pow_p58_x4, start, finish);
  }
  for (size_t i = std::min(first, n); i < n; ++i) alone(i);
}

}  // namespace

void RistrettoPoint::decompress_batch(std::span<const CompressedRistretto> in,
                                      std::span<std::optional<RistrettoPoint>> out) {
  Decoding slots[16];
  grouped_pow_p58(
      std::min(in.size(), out.size()),
      [&](size_t i, size_t lane) {
        slots[lane] = decode_start(in[i]);
        return slots[lane].sqrt_base;
      },
      [&](size_t i, size_t lane, const Fe& power) { out[i] = decode_finish(slots[lane], power); },
      [&](size_t i) { out[i] = decompress(in[i]); });
}

namespace {

// RFC 9496 ENCODE up to its inverse square root, and from there on (compress_batch shares
// the exponentiation between several points as decompress_batch does).
struct Encoding {
  Fe u1, u2, v, v3, sqrt_base;
};

Encoding encode_start(const EdwardsPoint& p) {
  if (detail::OpTally* tally = detail::op_tally()) ++tally->compressions;
  Encoding e;
  e.u1 = fe_mul(fe_add(p.Z, p.Y), fe_sub(p.Z, p.Y));
  e.u2 = fe_mul(p.X, p.Y);
  e.v = fe_mul(e.u1, fe_sq(e.u2));
  e.sqrt_base = fe_sqrt_ratio_base(kFeOne, e.v, e.v3);
  return e;
}

CompressedRistretto encode_finish(const EdwardsPoint& p, const Encoding& e, const Fe& sqrt_base_pow_p58) {
  const Fe& x0 = p.X;
  const Fe& y0 = p.Y;
  const Fe& z0 = p.Z;
  const Fe& t0 = p.T;
  Fe invsqrt;
  fe_sqrt_ratio_finish(kFeOne, e.v, e.v3, sqrt_base_pow_p58, invsqrt);
  const Fe den1 = fe_mul(invsqrt, e.u1);
  const Fe den2 = fe_mul(invsqrt, e.u2);
  const Fe z_inv = fe_mul(fe_mul(den1, den2), t0);
  const Fe ix0 = fe_mul(x0, kSqrtM1);
  const Fe iy0 = fe_mul(y0, kSqrtM1);
  const Fe enchanted_denominator = fe_mul(den1, kInvSqrtAMinusD);
  const uint64_t rotate = fe_is_negative_mask(fe_mul(t0, z_inv));
  const Fe x = fe_select(x0, iy0, rotate);
  Fe y = fe_select(y0, ix0, rotate);
  const Fe den_inv = fe_select(den2, enchanted_denominator, rotate);
  y = fe_cneg(y, fe_is_negative_mask(fe_mul(x, z_inv)));
  const Fe s = fe_abs(fe_mul(den_inv, fe_sub(z0, y)));
  CompressedRistretto out;
  fe_to_bytes(out.bytes.data(), s);
  return out;
}

}  // namespace

CompressedRistretto RistrettoPoint::compress() const {
  const Encoding e = encode_start(p_);
  return encode_finish(p_, e, fe_pow_p58(e.sqrt_base));
}

void RistrettoPoint::compress_batch(std::span<const RistrettoPoint> in, std::span<CompressedRistretto> out) {
  Encoding slots[16];
  grouped_pow_p58(
      std::min(in.size(), out.size()),
      [&](size_t i, size_t lane) {
        slots[lane] = encode_start(in[i].p_);
        return slots[lane].sqrt_base;
      },
      [&](size_t i, size_t lane, const Fe& power) { out[i] = encode_finish(in[i].p_, slots[lane], power); },
      [&](size_t i) { out[i] = in[i].compress(); });
}

namespace {

// RFC 9496 MAP: one field element to a point (the Elligator variant for ristretto).
EdwardsPoint elligator_map(const Fe& t) {
  const Fe minus_one = fe_neg(kFeOne);
  const Fe r = fe_mul(kSqrtM1, fe_sq(t));
  const Fe u = fe_mul(fe_add(r, kFeOne), kOneMinusDSq);
  const Fe v = fe_mul(fe_sub(minus_one, fe_mul(r, kD)), fe_add(r, kD));
  Fe s;
  const uint64_t was_square = fe_sqrt_ratio_m1(u, v, s);
  const Fe s_prime = fe_neg(fe_abs(fe_mul(s, t)));
  s = fe_select(s_prime, s, was_square);
  const Fe c = fe_select(r, minus_one, was_square);
  const Fe N = fe_sub(fe_mul(fe_mul(c, fe_sub(r, kFeOne)), kDMinusOneSq), v);
  const Fe w0 = fe_mul(fe_add(s, s), v);
  const Fe w1 = fe_mul(N, kSqrtAdMinusOne);
  const Fe ss = fe_sq(s);
  const Fe w2 = fe_sub(kFeOne, ss);
  const Fe w3 = fe_add(kFeOne, ss);
  return {fe_mul(w0, w3), fe_mul(w2, w1), fe_mul(w1, w3), fe_mul(w0, w2)};
}

}  // namespace

RistrettoPoint RistrettoPoint::from_uniform_bytes(std::span<const uint8_t, 64> bytes) {
  const EdwardsPoint p1 = elligator_map(fe_from_bytes(bytes.data()));
  const EdwardsPoint p2 = elligator_map(fe_from_bytes(bytes.data() + 32));
  return RistrettoPoint(p1 + p2);
}

bool operator==(const RistrettoPoint& a, const RistrettoPoint& b) {
  const EdwardsPoint& p = a.p_;
  const EdwardsPoint& q = b.p_;
  const uint64_t x1y2_eq_y1x2 = fe_eq_mask(fe_mul(p.X, q.Y), fe_mul(p.Y, q.X));
  const uint64_t y1y2_eq_x1x2 = fe_eq_mask(fe_mul(p.Y, q.Y), fe_mul(p.X, q.X));
  return (x1y2_eq_y1x2 | y1y2_eq_x1x2) != 0;
}

}  // namespace bp
