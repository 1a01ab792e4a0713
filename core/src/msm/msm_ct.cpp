// Constant-time Straus: every point gets a table of 1P..8P, every scalar 64 signed
// radix-16 digits; the loop does 4 doublings and one branch-free table lookup and
// addition per point per digit, whatever the digits are. With comb tables (a table per
// digit position) the doublings go.
#include <sodium.h>

#include <vector>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "msm/ct_tables.hpp"
#include "msm/msm_kernels.hpp"
#include "msm/op_tally.hpp"
#include "arith/scalar_recoding.hpp"

namespace bp {

using namespace detail;

RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables) {
  const size_t n = std::min(scalars.size(), tables.size());
  const MsmTallyScope tally([n](OpTally& t) { tally_ct(t, CtForm::Tables, n); });
  if (const MsmKernels* vector = active_msm_kernels()) return vector->ct_with_tables(scalars.first(n), tables.first(n));
  auto& digits = ct_digits(scalars.first(n));
  EdwardsPoint acc = kIdentity;
  for (int j = 63; j >= 0; --j) {
    if (j != 63) acc = mul_by_pow2(acc, 4);
    for (size_t i = 0; i < n; ++i)
      acc = to_extended(add(acc, ct_select(&tables[i]->multiple(0), kAffineCachedIdentity, digits[i * 64 + j])));
  }
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(acc);
}

RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const CtCombTable* const> combs) {
  const size_t n = std::min(scalars.size(), combs.size());
  const MsmTallyScope tally([n](OpTally& t) { tally_ct(t, CtForm::Combs, n); });
  if (const MsmKernels* vector = active_msm_kernels()) return vector->ct_with_combs(scalars.first(n), combs.first(n));
  auto& digits = ct_digits(scalars.first(n));
  EdwardsPoint acc = kIdentity;
  for (size_t i = 0; i < n; ++i)
    for (int j = 0; j < CtCombTable::kPositions; ++j)
      acc = to_extended(
          add(acc, ct_select(&combs[i]->position(j).multiple(0), kAffineCachedIdentity, digits[i * 64 + j])));
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(acc);
}

RistrettoPoint multiscalar_mul(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const size_t n = std::min(scalars.size(), points.size());
  const MsmTallyScope tally([n](OpTally& t) { tally_ct(t, CtForm::Points, n); });
  if (const MsmKernels* vector = active_msm_kernels()) return vector->ct_with_points(scalars.first(n), points.first(n));
  const auto& tables = ct_lookup_tables(points.first(n));
  auto& digits = ct_digits(scalars.first(n));
  EdwardsPoint acc = kIdentity;
  for (int j = 63; j >= 0; --j) {
    if (j != 63) acc = mul_by_pow2(acc, 4);
    for (size_t i = 0; i < n; ++i)
      acc = to_extended(add(acc, ct_select(tables[i].multiples, kCachedIdentity, digits[i * 64 + j])));
  }
  sodium_memzero(digits.data(), digits.size());
  return RistrettoPoint(acc);
}

// Declared with the point (bp/ristretto.hpp) and defined here: a point times a secret
// scalar is a one-term constant-time multiplication, and the group sits below this layer.
RistrettoPoint RistrettoPoint::operator*(const Scalar& s) const {
  return multiscalar_mul(std::span<const Scalar>(&s, 1), std::span<const RistrettoPoint>(this, 1));
}

}  // namespace bp
