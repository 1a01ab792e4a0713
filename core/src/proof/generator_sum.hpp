// The last step every Bulletproofs verification shares, range proofs (single and batched)
// and constraint systems alike: one multiscalar sum over the generators and the proof's own
// points, checked against the identity.
#pragma once

#include <span>
#include <vector>

#include "bp/generators.hpp"

namespace bp::detail {

// Whether B̃·B_blinding + B·B_scalar + sum over parties j < m and indices i < n of
// G_(j,i)·G[j·n + i] + H_(j,i)·H[j·n + i], plus the points times their scalars, is the
// identity: the last step of single and batch verification. The first time a shape (n, m)
// is checked the generators join the other points as they are (tables would cost more to
// build than they save once: BulletproofGens::tables_pay_for); after that they go through
// their shifted tables when there are enough of them to repay those (shifted_tables_pay),
// otherwise through their NAF tables. Pairs with both scalars zero (generators no proof of
// a mixed batch reaches) are left out.
bool generator_sum_is_identity(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n, size_t m,
                               const Scalar& B_blinding, const Scalar& B, std::span<const Scalar> G,
                               std::span<const Scalar> H, std::vector<Scalar> scalars,
                               std::vector<RistrettoPoint> points);

}  // namespace bp::detail
