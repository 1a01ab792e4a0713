#include "state.hpp"

namespace bp::mpc::detail {
namespace {

bool decodes(const CompressedRistretto& p) { return RistrettoPoint::decompress(p).has_value(); }
bool decodes_non_identity(const CompressedRistretto& p) { return !p.is_identity_encoding() && decodes(p); }

}  // namespace

std::vector<size_t> malformed_bit_commitments(std::span<const BitCommitment> commitments) {
  std::vector<size_t> bad;
  for (size_t j = 0; j < commitments.size(); ++j) {
    const auto& c = commitments[j];
    if (!decodes(c.V_j) || !decodes_non_identity(c.A_j) || !decodes_non_identity(c.S_j)) bad.push_back(j);
  }
  return bad;
}

std::vector<size_t> malformed_poly_commitments(std::span<const PolyCommitment> commitments) {
  std::vector<size_t> bad;
  for (size_t j = 0; j < commitments.size(); ++j)
    if (!decodes_non_identity(commitments[j].T_1_j) || !decodes_non_identity(commitments[j].T_2_j)) bad.push_back(j);
  return bad;
}

std::vector<size_t> wrong_size_shares(std::span<const ProofShare> shares, size_t n) {
  std::vector<size_t> bad;
  for (size_t j = 0; j < shares.size(); ++j)
    if (shares[j].l_vec.size() != n || shares[j].r_vec.size() != n) bad.push_back(j);
  return bad;
}

}  // namespace bp::mpc::detail
