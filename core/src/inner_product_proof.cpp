// The inner-product argument. Notation follows docs/range-proof.md: in round k the vectors
// are halved, L_k = <a_lo, G_hi> + <b_hi, H_lo> + <a_lo, b_hi>·Q and R_k symmetrically,
// then a' = u·a_lo + u⁻¹·a_hi, b' = u⁻¹·b_lo + u·b_hi, G' = u⁻¹·G_lo + u·G_hi, H' = u·H_lo + u⁻¹·H_hi.
#include "bp/inner_product_proof.hpp"

#include <cstring>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/transcript_protocol.hpp"

namespace bp {

Scalar inner_product(std::span<const Scalar> a, std::span<const Scalar> b) {
  Scalar acc;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) acc += a[i] * b[i];
  return acc;
}

InnerProductProof InnerProductProof::create(Transcript& transcript, const RistrettoPoint& Q,
                                            std::span<const Scalar> G_factors, std::span<const Scalar> H_factors,
                                            std::span<const VartimeBaseTable* const> G_tables,
                                            std::span<const VartimeBaseTable* const> H_tables, std::vector<Scalar> a,
                                            std::vector<Scalar> b) {
  const size_t N = G_tables.size();
  innerproduct_domain_sep(transcript, N);
  InnerProductProof proof;

  // coeff_G[j]: the factor of original G_j inside the folded generator that covers it.
  std::vector<Scalar> coeff_G(G_factors.begin(), G_factors.end());
  std::vector<Scalar> coeff_H(H_factors.begin(), H_factors.end());
  std::vector<Scalar> scalars(N);
  std::vector<const VartimeBaseTable*> tables(N);

  for (size_t n = N; n != 1;) {
    const size_t half = n / 2;
    const Scalar c_L = inner_product({a.data(), half}, {b.data() + half, half});
    const Scalar c_R = inner_product({a.data() + half, half}, {b.data(), half});

    // Original index j lies in folded position i = j mod n. L takes G from the high half
    // (with a_lo) and H from the low half (with b_hi); R the other way round.
    for (size_t j = 0; j < N; ++j) {
      const size_t i = j % n;
      if (i >= half) {
        scalars[j] = a[i - half] * coeff_G[j];
        tables[j] = G_tables[j];
      } else {
        scalars[j] = b[i + half] * coeff_H[j];
        tables[j] = H_tables[j];
      }
    }
    const CompressedRistretto L =
        multiscalar_mul_vartime(scalars, tables, std::span<const Scalar>(&c_L, 1), std::span<const RistrettoPoint>(&Q, 1))
            .compress();
    for (size_t j = 0; j < N; ++j) {
      const size_t i = j % n;
      if (i < half) {
        scalars[j] = a[i + half] * coeff_G[j];
        tables[j] = G_tables[j];
      } else {
        scalars[j] = b[i - half] * coeff_H[j];
        tables[j] = H_tables[j];
      }
    }
    const CompressedRistretto R =
        multiscalar_mul_vartime(scalars, tables, std::span<const Scalar>(&c_R, 1), std::span<const RistrettoPoint>(&Q, 1))
            .compress();

    proof.L_vec.push_back(L);
    proof.R_vec.push_back(R);
    append_point(transcript, "L", L);
    append_point(transcript, "R", R);
    const Scalar u = challenge_scalar(transcript, "u");
    const Scalar u_inv = u.invert();

    for (size_t i = 0; i < half; ++i) {
      a[i] = a[i] * u + u_inv * a[half + i];
      b[i] = b[i] * u_inv + u * b[half + i];
    }
    // G' = u⁻¹·G_lo + u·G_hi and H' = u·H_lo + u⁻¹·H_hi, applied to the coefficients.
    for (size_t j = 0; j < N; ++j) {
      const bool low = j % n < half;
      coeff_G[j] *= low ? u_inv : u;
      coeff_H[j] *= low ? u : u_inv;
    }
    n = half;
  }
  proof.a = a[0];
  proof.b = b[0];
  for (auto& s : a) s.wipe();
  for (auto& s : b) s.wipe();
  for (auto& s : scalars) s.wipe();
  return proof;
}

Result<InnerProductProof::VerificationScalars> InnerProductProof::verification_scalars(size_t n,
                                                                                       Transcript& transcript) const {
  const size_t lg_n = L_vec.size();
  if (lg_n >= 32 || R_vec.size() != lg_n || n != (size_t{1} << lg_n)) return ProofError::VerificationError;
  innerproduct_domain_sep(transcript, n);

  VerificationScalars out;
  out.u_sq.reserve(lg_n);
  for (size_t k = 0; k < lg_n; ++k) {
    if (!validate_and_append_point(transcript, "L", L_vec[k])) return ProofError::VerificationError;
    if (!validate_and_append_point(transcript, "R", R_vec[k])) return ProofError::VerificationError;
    out.u_sq.push_back(challenge_scalar(transcript, "u"));
  }
  out.u_inv_sq = out.u_sq;
  const Scalar all_inv = Scalar::batch_invert(out.u_inv_sq);
  for (size_t k = 0; k < lg_n; ++k) {
    out.u_sq[k] = out.u_sq[k].square();
    out.u_inv_sq[k] = out.u_inv_sq[k].square();
  }
  // s_i = prod_k u_k^(±1), the sign given by bit (lg_n-1-k) of i; built from s_0 = prod u_k⁻¹
  // by flipping one factor at a time (multiplying by u_k²).
  out.s.resize(n);
  out.s[0] = all_inv;
  for (size_t i = 1; i < n; ++i) {
    const size_t lg_i = 63 - static_cast<size_t>(__builtin_clzll(i));
    const size_t k = size_t{1} << lg_i;
    out.s[i] = out.s[i - k] * out.u_sq[(lg_n - 1) - lg_i];
  }
  return out;
}

void InnerProductProof::append_bytes(std::vector<uint8_t>& out) const {
  for (size_t k = 0; k < L_vec.size(); ++k) {
    out.insert(out.end(), L_vec[k].bytes.begin(), L_vec[k].bytes.end());
    out.insert(out.end(), R_vec[k].bytes.begin(), R_vec[k].bytes.end());
  }
  const auto a_bytes = a.to_bytes(), b_bytes = b.to_bytes();
  out.insert(out.end(), a_bytes.begin(), a_bytes.end());
  out.insert(out.end(), b_bytes.begin(), b_bytes.end());
}

Result<InnerProductProof> InnerProductProof::from_bytes(std::span<const uint8_t> bytes) {
  if (bytes.size() % 32 != 0) return ProofError::FormatError;
  const size_t elements = bytes.size() / 32;
  if (elements < 2 || (elements - 2) % 2 != 0) return ProofError::FormatError;
  const size_t lg_n = (elements - 2) / 2;
  if (lg_n >= 32) return ProofError::FormatError;
  InnerProductProof proof;
  for (size_t k = 0; k < lg_n; ++k) {
    CompressedRistretto L, R;
    std::memcpy(L.bytes.data(), bytes.data() + 64 * k, 32);
    std::memcpy(R.bytes.data(), bytes.data() + 64 * k + 32, 32);
    proof.L_vec.push_back(L);
    proof.R_vec.push_back(R);
  }
  const auto a = Scalar::from_canonical_bytes(bytes.subspan(64 * lg_n).first<32>());
  const auto b = Scalar::from_canonical_bytes(bytes.subspan(64 * lg_n + 32).first<32>());
  if (!a || !b) return ProofError::FormatError;
  proof.a = *a;
  proof.b = *b;
  return proof;
}

}  // namespace bp
