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

namespace {

// a' = u·a_lo + u⁻¹·a_hi and b' = u⁻¹·b_lo + u·b_hi, in place in the low halves.
void fold_witness(std::vector<Scalar>& a, std::vector<Scalar>& b, const Scalar& u, const Scalar& u_inv, size_t half) {
  for (size_t i = 0; i < half; ++i) {
    a[i] = a[i] * u + u_inv * a[half + i];
    b[i] = b[i] * u_inv + u * b[half + i];
  }
}

// Adds L and R to the proof and the transcript and returns the round's challenge u.
Scalar record_round(Transcript& transcript, InnerProductProof& proof, const CompressedRistretto& L,
                    const CompressedRistretto& R) {
  proof.L_vec.push_back(L);
  proof.R_vec.push_back(R);
  append_point(transcript, "L", L);
  append_point(transcript, "R", R);
  return challenge_scalar(transcript, "u");
}

// One unfolded round's multiscalar multiplication: scalars[j] on G_j where on_G[j], on H_j
// otherwise, plus c·Q, through one kind of table (NAF or shifted).
template <class Table>
CompressedRistretto round_commitment(std::span<const Scalar> scalars, const std::vector<bool>& on_G,
                                     std::span<const Table* const> G, std::span<const Table* const> H, const Scalar& c,
                                     const RistrettoPoint& Q) {
  std::vector<const Table*> tables(scalars.size());
  for (size_t j = 0; j < scalars.size(); ++j) tables[j] = on_G[j] ? G[j] : H[j];
  return multiscalar_mul_vartime(scalars, tables, std::span<const Scalar>(&c, 1),
                                 std::span<const RistrettoPoint>(&Q, 1))
      .compress();
}

// The same for the folded generators once they are computed (points without tables);
// with_c and points are the caller's scratch, reused across rounds.
CompressedRistretto materialised_commitment(std::span<const Scalar> scalars, const std::vector<bool>& on_G,
                                            const std::vector<RistrettoPoint>& G, const std::vector<RistrettoPoint>& H,
                                            const Scalar& c, const RistrettoPoint& Q, std::vector<Scalar>& with_c,
                                            std::vector<RistrettoPoint>& points) {
  const size_t n = scalars.size();
  with_c.assign(scalars.begin(), scalars.end());
  with_c.push_back(c);
  points.resize(n + 1);
  for (size_t j = 0; j < n; ++j) points[j] = on_G[j] ? G[j] : H[j];
  points[n] = Q;
  return multiscalar_mul_vartime(with_c, points).compress();
}

// Rounds without folding the generators, while n > stop_at. Generator j of the N that
// `commit` works on lies in folded position i = j mod n; coeff_G[j] (coeff_H[j]) is the
// factor folding would by now have applied to it, and commit(scalars, on_G, c) returns
// sum_j scalars[j]·(on_G[j] ? G_j : H_j) + c·Q. L takes G from the high half (with a_lo)
// and H from the low half (with b_hi); R the other way round.
template <class Commit>
void unfolded_rounds(Transcript& transcript, InnerProductProof& proof, std::vector<Scalar>& a, std::vector<Scalar>& b,
                     std::vector<Scalar>& coeff_G, std::vector<Scalar>& coeff_H, size_t& n, size_t stop_at,
                     Commit&& commit) {
  const size_t N = coeff_G.size();
  std::vector<Scalar> scalars(N);
  std::vector<bool> on_G(N);
  while (n != stop_at) {
    const size_t half = n / 2;
    const Scalar c_L = inner_product({a.data(), half}, {b.data() + half, half});
    const Scalar c_R = inner_product({a.data() + half, half}, {b.data(), half});
    for (size_t j = 0; j < N; ++j) {
      const size_t i = j % n;
      on_G[j] = i >= half;
      scalars[j] = on_G[j] ? a[i - half] * coeff_G[j] : b[i + half] * coeff_H[j];
    }
    const CompressedRistretto L = commit(scalars, on_G, c_L);
    for (size_t j = 0; j < N; ++j) {
      const size_t i = j % n;
      on_G[j] = i < half;
      scalars[j] = on_G[j] ? a[i + half] * coeff_G[j] : b[i - half] * coeff_H[j];
    }
    const CompressedRistretto R = commit(scalars, on_G, c_R);

    const Scalar u = record_round(transcript, proof, L, R);
    const Scalar u_inv = u.invert_vartime();
    fold_witness(a, b, u, u_inv, half);
    // G' = u⁻¹·G_lo + u·G_hi and H' = u·H_lo + u⁻¹·H_hi, applied to the coefficients.
    for (size_t j = 0; j < N; ++j) {
      const bool low = j % n < half;
      coeff_G[j] *= low ? u_inv : u;
      coeff_H[j] *= low ? u : u_inv;
    }
    n = half;
  }
  for (auto& k : scalars) k.wipe();
}

// Below this many generators every round works on the original generators; above it, the
// first kUnfoldedRounds do, then the generators are folded once and the rest proceeds on
// them. The break-even follows from counting point additions (docs/range-proof.md).
constexpr size_t kHybridFrom = 128;
constexpr size_t kUnfoldedRounds = 4;

}  // namespace

InnerProductProof InnerProductProof::create(Transcript& transcript, const RistrettoPoint& Q,
                                            std::span<const Scalar> G_factors, std::span<const Scalar> H_factors,
                                            std::span<const VartimeBaseTable* const> G_tables,
                                            std::span<const VartimeBaseTable* const> H_tables, std::vector<Scalar> a,
                                            std::vector<Scalar> b, std::span<const ShiftedBaseTable* const> G_shifted,
                                            std::span<const ShiftedBaseTable* const> H_shifted) {
  const size_t N = G_tables.size();
  const bool shifted = G_shifted.size() == N && H_shifted.size() == N;
  innerproduct_domain_sep(transcript, N);
  InnerProductProof proof;

  // coeff_G[j]: the factor of original G_j inside the folded generator that covers it.
  std::vector<Scalar> coeff_G(G_factors.begin(), G_factors.end());
  std::vector<Scalar> coeff_H(H_factors.begin(), H_factors.end());
  const auto through_tables = [&](std::span<const Scalar> scalars, const std::vector<bool>& on_G, const Scalar& c) {
    return shifted ? round_commitment(scalars, on_G, G_shifted, H_shifted, c, Q)
                   : round_commitment(scalars, on_G, G_tables, H_tables, c, Q);
  };
  size_t n = N;
  unfolded_rounds(transcript, proof, a, b, coeff_G, coeff_H, n, N >= kHybridFrom ? N >> kUnfoldedRounds : 1,
                  through_tables);

  if (n != 1) {
    // Materialise the folded generators once: G'_i = sum_t coeff_G[i + t·n]·G_(i + t·n).
    std::vector<RistrettoPoint> G(n), H(n);
    const size_t per = N / n;
    std::vector<Scalar> part(per);
    std::vector<const VartimeBaseTable*> part_tables(per);
    for (size_t i = 0; i < n; ++i) {
      for (size_t t = 0; t < per; ++t) {
        part[t] = coeff_G[i + t * n];
        part_tables[t] = G_tables[i + t * n];
      }
      G[i] = multiscalar_mul_vartime(part, part_tables, {}, {});
      for (size_t t = 0; t < per; ++t) {
        part[t] = coeff_H[i + t * n];
        part_tables[t] = H_tables[i + t * n];
      }
      H[i] = multiscalar_mul_vartime(part, part_tables, {}, {});
    }
    // The remaining rounds run the same way on these n points, still without folding them:
    // folding would cost a two-point multiplication per generator per round, while here
    // each round only multiplies a coefficient (docs/range-proof.md counts both).
    std::vector<Scalar> tail_G(n, Scalar::one()), tail_H(n, Scalar::one());
    std::vector<Scalar> with_c;
    std::vector<RistrettoPoint> points;
    const auto on_materialised = [&](std::span<const Scalar> scalars, const std::vector<bool>& on_G, const Scalar& c) {
      return materialised_commitment(scalars, on_G, G, H, c, Q, with_c, points);
    };
    size_t tail_n = n;
    unfolded_rounds(transcript, proof, a, b, tail_G, tail_H, tail_n, 1, on_materialised);
    for (auto& k : with_c) k.wipe();
  }
  proof.a = a[0];
  proof.b = b[0];
  for (auto& k : a) k.wipe();
  for (auto& k : b) k.wipe();
  return proof;
}

Result<std::vector<Scalar>> InnerProductProof::verification_challenges(size_t n, Transcript& transcript) const {
  const size_t lg_n = L_vec.size();
  if (lg_n >= 32 || R_vec.size() != lg_n || n != (size_t{1} << lg_n)) return ProofError::VerificationError;
  innerproduct_domain_sep(transcript, n);
  std::vector<Scalar> u;
  u.reserve(lg_n);
  for (size_t k = 0; k < lg_n; ++k) {
    if (!validate_and_append_point(transcript, "L", L_vec[k])) return ProofError::VerificationError;
    if (!validate_and_append_point(transcript, "R", R_vec[k])) return ProofError::VerificationError;
    u.push_back(challenge_scalar(transcript, "u"));
  }
  return u;
}

InnerProductProof::VerificationScalars InnerProductProof::scalars_from_challenges(std::span<const Scalar> u,
                                                                                  std::span<const Scalar> u_inv) {
  const size_t lg_n = u.size();
  VerificationScalars out;
  out.u_sq.reserve(lg_n);
  out.u_inv_sq.reserve(lg_n);
  Scalar all_inv = Scalar::one();  // prod_k u_k⁻¹
  for (size_t k = 0; k < lg_n; ++k) {
    out.u_sq.push_back(u[k].square());
    out.u_inv_sq.push_back(u_inv[k].square());
    all_inv *= u_inv[k];
  }
  // s_i = prod_k u_k^(±1), the sign given by bit (lg_n-1-k) of i; built from s_0 = prod u_k⁻¹
  // by flipping one factor at a time (multiplying by u_k²).
  const size_t n = size_t{1} << lg_n;
  out.s.resize(n);
  out.s[0] = all_inv;
  for (size_t i = 1; i < n; ++i) {
    const size_t lg_i = 63 - static_cast<size_t>(__builtin_clzll(i));
    const size_t k = size_t{1} << lg_i;
    out.s[i] = out.s[i - k] * out.u_sq[(lg_n - 1) - lg_i];
  }
  return out;
}

Result<InnerProductProof::VerificationScalars> InnerProductProof::verification_scalars(size_t n, Transcript& transcript,
                                                                                       const Scalar& extra) const {
  auto u = verification_challenges(n, transcript);
  if (!u) return u.error();
  // The inverses of every u_k and of extra, from one inversion.
  std::vector<Scalar> inverses = *u;
  inverses.push_back(extra);
  Scalar::batch_invert_vartime(inverses);
  auto out = scalars_from_challenges(*u, std::span(inverses).first(u->size()));
  out.extra_inv = inverses.back();
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
