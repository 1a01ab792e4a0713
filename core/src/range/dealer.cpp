// The dealer's side of a range-proof session: the challenges from the parties' commitments,
// the proof assembled from their shares, and the audit that names a party whose share fails;
// see docs/range-proof.md for the notation.
#include "bp/aggregation.hpp"

#include <array>
#include <optional>
#include <vector>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/transcript_protocol.hpp"

namespace bp {

namespace {

// The sums of the even-numbered and of the odd-numbered points (every party's pair, such as
// A_j and S_j), encoded. The parties' points are decoded in one batch and the two sums
// encoded in one (shared square-root exponentiations); nullopt if any point does not decode.
std::optional<std::array<CompressedRistretto, 2>> encoded_pair_sums(std::span<const CompressedRistretto> parts) {
  std::vector<std::optional<RistrettoPoint>> decoded(parts.size());
  RistrettoPoint::decompress_batch(parts, decoded);
  std::array<RistrettoPoint, 2> sums;
  for (size_t i = 0; i < decoded.size(); ++i) {
    if (!decoded[i]) return std::nullopt;
    sums[i % 2] += *decoded[i];
  }
  std::array<CompressedRistretto, 2> encoded;
  RistrettoPoint::compress_batch(sums, encoded);
  return encoded;
}

}  // namespace

Result<DealerBitRound> dealer_bit_challenge(Transcript& t, std::span<const BitCommitment> commitments) {
  DealerBitRound round;
  for (const auto& c : commitments) append_point(t, "V", c.V_j);
  std::vector<CompressedRistretto> encoded_parts;  // A_0, S_0, A_1, S_1, ...
  for (const auto& c : commitments) encoded_parts.insert(encoded_parts.end(), {c.A_j, c.S_j});
  const auto sums = encoded_pair_sums(encoded_parts);
  if (!sums) return ProofError::VerificationError;
  round.A = (*sums)[0];
  round.S = (*sums)[1];
  append_point(t, "A", round.A);
  append_point(t, "S", round.S);
  round.challenge.y = challenge_scalar(t, "y");
  round.challenge.z = challenge_scalar(t, "z");
  return round;
}

Result<DealerPolyRound> dealer_poly_challenge(Transcript& t, std::span<const PolyCommitment> commitments) {
  DealerPolyRound round;
  std::vector<CompressedRistretto> encoded_parts;  // T_1_0, T_2_0, T_1_1, T_2_1, ...
  for (const auto& c : commitments) encoded_parts.insert(encoded_parts.end(), {c.T_1_j, c.T_2_j});
  const auto sums = encoded_pair_sums(encoded_parts);
  if (!sums) return ProofError::VerificationError;
  round.T_1 = (*sums)[0];
  round.T_2 = (*sums)[1];
  append_point(t, "T_1", round.T_1);
  append_point(t, "T_2", round.T_2);
  round.challenge.x = challenge_scalar(t, "x");
  return round;
}

RangeProof dealer_assemble(Transcript& t, const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n,
                           const DealerBitRound& bit_round, const DealerPolyRound& poly_round,
                           std::span<const ProofShare> shares) {
  const size_t m = shares.size();
  RangeProof proof;
  proof.A = bit_round.A;
  proof.S = bit_round.S;
  proof.T_1 = poly_round.T_1;
  proof.T_2 = poly_round.T_2;
  for (const auto& share : shares) {
    proof.t_x += share.t_x;
    proof.t_x_blinding += share.t_x_blinding;
    proof.e_blinding += share.e_blinding;
  }
  append_scalar(t, "t_x", proof.t_x);
  append_scalar(t, "t_x_blinding", proof.t_x_blinding);
  append_scalar(t, "e_blinding", proof.e_blinding);
  const Scalar w = challenge_scalar(t, "w");
  const RistrettoPoint Q =
      multiscalar_mul_vartime(std::span<const Scalar>(&w, 1), std::span<const RistrettoPoint>(&pc_gens.B, 1));

  const size_t nm = n * m;
  std::vector<Scalar> G_factors(nm, Scalar::one());
  std::vector<Scalar> H_factors(nm);
  const Scalar y_inv = bit_round.challenge.y.invert_vartime();
  Scalar exp = Scalar::one();
  for (auto& f : H_factors) {
    f = exp;
    exp *= y_inv;
  }
  std::vector<Scalar> l, r;
  l.reserve(nm);
  r.reserve(nm);
  for (const auto& share : shares) {
    l.insert(l.end(), share.l_vec.begin(), share.l_vec.end());
    r.insert(r.end(), share.r_vec.begin(), share.r_vec.end());
  }
  // Long vectors (m >= 16 for n = 64) repay the shifted tables in the unfolded rounds.
  const bool shifted = shifted_tables_pay(nm);
  proof.ipp = InnerProductProof::create(
      t, Q, G_factors, H_factors, bp_gens.G_tables_aggregated(n, m), bp_gens.H_tables_aggregated(n, m), std::move(l),
      std::move(r), shifted ? bp_gens.G_shifted_tables_aggregated(n, m) : std::vector<const ShiftedBaseTable*>{},
      shifted ? bp_gens.H_shifted_tables_aggregated(n, m) : std::vector<const ShiftedBaseTable*>{});
  return proof;
}

bool audit_share_vartime(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t j, size_t n,
                         const BitCommitment& bits, const BitChallenge& bit_challenge, const PolyCommitment& poly,
                         const PolyChallenge& poly_challenge, const ProofShare& share) {
  if (share.l_vec.size() != n || share.r_vec.size() != n) return false;
  if (j >= bp_gens.party_capacity() || n > bp_gens.gens_capacity()) return false;
  const Scalar& y = bit_challenge.y;
  const Scalar& z = bit_challenge.z;
  const Scalar& x = poly_challenge.x;
  const Scalar zz = z * z;
  const Scalar z_j = z.pow_vartime(j);
  const Scalar y_jn_inv = y.pow_vartime(j * n).invert_vartime();
  const Scalar y_inv = y.invert_vartime();

  if (!(share.t_x == inner_product(share.l_vec, share.r_vec))) return false;

  const auto A_j = RistrettoPoint::decompress(bits.A_j);
  const auto S_j = RistrettoPoint::decompress(bits.S_j);
  const auto V_j = RistrettoPoint::decompress(bits.V_j);
  const auto T_1 = RistrettoPoint::decompress(poly.T_1_j);
  const auto T_2 = RistrettoPoint::decompress(poly.T_2_j);
  if (!A_j || !S_j || !V_j || !T_1 || !T_2) return false;

  // A_j + x·S_j - e_blinding·B̃ - <l, G_j> - <y^-(jn+i)·r - z·... , H_j> must be the identity:
  // the share's l and r open the party's own A_j and S_j.
  std::vector<Scalar> scalars{Scalar::one(), x, -share.e_blinding};
  std::vector<RistrettoPoint> points{*A_j, *S_j, pc_gens.B_blinding};
  const Scalar minus_z = -z;
  Scalar exp_2 = Scalar::one(), exp_y_inv = y_jn_inv;
  const Scalar zz_z_j = zz * z_j;
  const auto G = bp_gens.G(j, n);
  const auto H = bp_gens.H(j, n);
  for (size_t i = 0; i < n; ++i) {
    scalars.push_back(minus_z - share.l_vec[i]);
    points.push_back(G[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    scalars.push_back(z + exp_y_inv * (zz_z_j * exp_2 - share.r_vec[i]));
    points.push_back(H[i]);
    exp_2 += exp_2;
    exp_y_inv *= y_inv;
  }
  if (!multiscalar_mul_vartime(scalars, points).is_identity()) return false;

  // t_x·B + t_x_blinding·B̃ = z²·z^j·V_j + δ_j·B + x·T_1 + x²·T_2.
  const Scalar delta =
      (z - zz) * sum_of_powers(y, n) * y.pow_vartime(j * n) - z * zz * sum_of_powers(Scalar::from_u64(2), n) * z_j;
  const Scalar t_scalars[5] = {zz_z_j, x, x * x, delta - share.t_x, -share.t_x_blinding};
  const RistrettoPoint t_points[5] = {*V_j, *T_1, *T_2, pc_gens.B, pc_gens.B_blinding};
  return multiscalar_mul_vartime(t_scalars, t_points).is_identity();
}

}  // namespace bp
