#include <optional>
#include <vector>

#include "state.hpp"

namespace bp::mpc::detail {
namespace {

// Whether each point decodes (identity allowed or not, per point), all decoded in one batch
// (shared square-root exponentiations), per item of `per_item` points each.
std::vector<size_t> items_failing_to_decode(std::span<const CompressedRistretto> points,
                                            std::span<const bool> identity_allowed, size_t per_item) {
  std::vector<std::optional<RistrettoPoint>> decoded(points.size());
  RistrettoPoint::decompress_batch(points, decoded);
  std::vector<size_t> bad;
  for (size_t item = 0; item * per_item < points.size(); ++item) {
    for (size_t k = 0; k < per_item; ++k) {
      const size_t i = item * per_item + k;
      if (!decoded[i] || (!identity_allowed[k] && points[i].is_identity_encoding())) {
        bad.push_back(item);
        break;
      }
    }
  }
  return bad;
}

}  // namespace

std::vector<size_t> malformed_bit_commitments(std::span<const BitCommitment> commitments) {
  std::vector<CompressedRistretto> points;
  for (const auto& c : commitments) points.insert(points.end(), {c.V_j, c.A_j, c.S_j});
  const bool identity_allowed[] = {true, false, false};  // V_j any valid point; A_j, S_j not the identity
  return items_failing_to_decode(points, identity_allowed, 3);
}

std::vector<size_t> malformed_poly_commitments(std::span<const PolyCommitment> commitments) {
  std::vector<CompressedRistretto> points;
  for (const auto& c : commitments) points.insert(points.end(), {c.T_1_j, c.T_2_j});
  const bool identity_allowed[] = {false, false};
  return items_failing_to_decode(points, identity_allowed, 2);
}

std::vector<size_t> wrong_size_shares(std::span<const ProofShare> shares, size_t n) {
  std::vector<size_t> bad;
  for (size_t j = 0; j < shares.size(); ++j)
    if (shares[j].l_vec.size() != n || shares[j].r_vec.size() != n) bad.push_back(j);
  return bad;
}

}  // namespace bp::mpc::detail
