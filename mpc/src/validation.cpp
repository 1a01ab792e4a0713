#include <optional>
#include <vector>

#include "state.hpp"

namespace bp::mpc::detail {
namespace {

// The items (each identity_allowed.size() points in a row) with a point that does not
// decode, or is the identity where its slot forbids it; all decoded in one batch (shared
// square-root exponentiations).
std::vector<size_t> items_failing_to_decode(std::span<const CompressedRistretto> points,
                                            std::span<const bool> identity_allowed) {
  const size_t per_item = identity_allowed.size();
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
  return items_failing_to_decode(points, identity_allowed);
}

std::vector<size_t> malformed_poly_commitments(std::span<const PolyCommitment> commitments) {
  std::vector<CompressedRistretto> points;
  for (const auto& c : commitments) points.insert(points.end(), {c.T_1_j, c.T_2_j});
  const bool identity_allowed[] = {false, false};
  return items_failing_to_decode(points, identity_allowed);
}

std::vector<size_t> wrong_size_shares(std::span<const ProofShare> shares, size_t n) {
  std::vector<size_t> bad;
  for (size_t j = 0; j < shares.size(); ++j)
    if (shares[j].l_vec.size() != n || shares[j].r_vec.size() != n) bad.push_back(j);
  return bad;
}

}  // namespace bp::mpc::detail
