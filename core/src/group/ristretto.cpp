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

// Decodes in[first, first + used) with one Lanes-way exponentiation (used <= Lanes; the
// spare lanes repeat the last base and are dropped).
template <size_t Lanes, class Pow>
void decode_group(std::span<const CompressedRistretto> in, std::span<std::optional<RistrettoPoint>> out, size_t first,
                  size_t used, Pow pow) {
  Decoding d[Lanes];
  Fe bases[Lanes], powers[Lanes];
  for (size_t lane = 0; lane < used; ++lane) {
    d[lane] = decode_start(in[first + lane]);
    bases[lane] = d[lane].sqrt_base;
  }
  for (size_t lane = used; lane < Lanes; ++lane) bases[lane] = bases[used - 1];
  pow(bases, powers);
  for (size_t lane = 0; lane < used; ++lane) out[first + lane] = decode_finish(d[lane], powers[lane]);
}

}  // namespace

void RistrettoPoint::decompress_batch(std::span<const CompressedRistretto> in,
                                      std::span<std::optional<RistrettoPoint>> out) {
  const size_t n = std::min(in.size(), out.size());
  // The vector exponentiations wherever the CPU has them, whichever backend runs the rest:
  // sixteen (or eight) at a time on AVX-512 IFMA, four on AVX2 (which beats one-by-one decoding even on
  // Zen 1, where the portable backend wins the multiscalar multiplications;
  // docs/performance.md). A lone last point decodes alone rather than in padded lanes.
  size_t first = 0;
  if (detail::cpu_executes_ifma()) {
    for (; first + 9 <= n; first += 16)
      decode_group<16>(in, out, first, std::min<size_t>(16, n - first), ifma::pow_p58_x16);
    for (; first + 2 <= n; first += 8)
      decode_group<8>(in, out, first, std::min<size_t>(8, n - first), ifma::pow_p58_x8);
  } else if (detail::cpu_executes_avx2()) {
    for (; first + 2 <= n; first += 4)
      decode_group<4>(in, out, first, std::min<size_t>(4, n - first), avx2::pow_p58_x4);
  }
  for (size_t i = std::min(first, n); i < n; ++i) out[i] = decompress(in[i]);
}

CompressedRistretto RistrettoPoint::compress() const {
  if (detail::OpTally* tally = detail::op_tally()) ++tally->compressions;
  const Fe& x0 = p_.X;
  const Fe& y0 = p_.Y;
  const Fe& z0 = p_.Z;
  const Fe& t0 = p_.T;
  const Fe u1 = fe_mul(fe_add(z0, y0), fe_sub(z0, y0));
  const Fe u2 = fe_mul(x0, y0);
  Fe invsqrt;
  fe_sqrt_ratio_m1(kFeOne, fe_mul(u1, fe_sq(u2)), invsqrt);
  const Fe den1 = fe_mul(invsqrt, u1);
  const Fe den2 = fe_mul(invsqrt, u2);
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
