// The inner-product argument. Notation follows docs/range-proof.md: in round k the vectors
// are halved, L_k = <a_lo, G_hi> + <b_hi, H_lo> + <a_lo, b_hi>·Q and R_k symmetrically,
// then a' = u·a_lo + u⁻¹·a_hi, b' = u⁻¹·b_lo + u·b_hi, G' = u⁻¹·G_lo + u·G_hi, H' = u·H_lo + u⁻¹·H_hi.
#include "bp/inner_product_proof.hpp"

#include <array>
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

// The round's two commitments, L and R, as points: L has scalars_L[j] on G_j where
// high[j], on H_j otherwise, plus c_L·Q; R has scalars_R[j] on the other one of G_j and
// H_j, plus c_R·Q.
struct RoundScalars {
  std::span<const Scalar> L, R;
  const std::vector<bool>& high;
  const Scalar& c_L;
  const Scalar& c_R;
};

// Both commitments through the generators' tables (NAF or shifted).
template <class Table>
std::array<RistrettoPoint, 2> commitments_through(const RoundScalars& round, std::span<const Table* const> G,
                                                  std::span<const Table* const> H, const RistrettoPoint& Q) {
  const size_t n = round.L.size();
  std::vector<const Table*> tables_L(n), tables_R(n);
  for (size_t j = 0; j < n; ++j) {
    tables_L[j] = round.high[j] ? G[j] : H[j];
    tables_R[j] = round.high[j] ? H[j] : G[j];
  }
  return {multiscalar_mul_vartime(round.L, tables_L, std::span<const Scalar>(&round.c_L, 1), {&Q, 1}),
          multiscalar_mul_vartime(round.R, tables_R, std::span<const Scalar>(&round.c_R, 1), {&Q, 1})};
}

// The same for the folded generators once they are computed (points without tables);
// scratch holds the caller's buffers, reused across rounds.
struct MaterialisedScratch {
  std::vector<Scalar> with_c_L, with_c_R;
  std::vector<RistrettoPoint> points_L, points_R;
  void wipe() {
    for (auto& k : with_c_L) k.wipe();
    for (auto& k : with_c_R) k.wipe();
  }
};

std::array<RistrettoPoint, 2> materialised_commitments(const RoundScalars& round, const std::vector<RistrettoPoint>& G,
                                                       const std::vector<RistrettoPoint>& H, const RistrettoPoint& Q,
                                                       MaterialisedScratch& scratch) {
  const size_t n = round.L.size();
  scratch.with_c_L.assign(round.L.begin(), round.L.end());
  scratch.with_c_L.push_back(round.c_L);
  scratch.with_c_R.assign(round.R.begin(), round.R.end());
  scratch.with_c_R.push_back(round.c_R);
  scratch.points_L.resize(n + 1);
  scratch.points_R.resize(n + 1);
  for (size_t j = 0; j < n; ++j) {
    scratch.points_L[j] = round.high[j] ? G[j] : H[j];
    scratch.points_R[j] = round.high[j] ? H[j] : G[j];
  }
  scratch.points_L[n] = Q;
  scratch.points_R[n] = Q;
  return {multiscalar_mul_vartime(scratch.with_c_L, scratch.points_L),
          multiscalar_mul_vartime(scratch.with_c_R, scratch.points_R)};
}

// Rounds without folding the generators, while n > stop_at. Generator j of the N that
// `commit` works on lies in folded position i = j mod n; coeff_G[j] (coeff_H[j]) is the
// factor folding would by now have applied to it, and commit(round) returns L and R as
// RoundScalars describes them. L takes G from the high half (with a_lo) and H from the low
// half (with b_hi); R the other way round.
template <class Commit>
void unfolded_rounds(Transcript& transcript, InnerProductProof& proof, std::vector<Scalar>& a, std::vector<Scalar>& b,
                     std::vector<Scalar>& coeff_G, std::vector<Scalar>& coeff_H, size_t& n, size_t stop_at,
                     Commit&& commit) {
  const size_t N = coeff_G.size();
  std::vector<Scalar> scalars_L(N), scalars_R(N);
  std::vector<bool> high(N);
  while (n != stop_at) {
    const size_t half = n / 2;
    const Scalar c_L = inner_product({a.data(), half}, {b.data() + half, half});
    const Scalar c_R = inner_product({a.data() + half, half}, {b.data(), half});
    for (size_t j = 0; j < N; ++j) {
      const size_t i = j % n;
      high[j] = i >= half;
      scalars_L[j] = high[j] ? a[i - half] * coeff_G[j] : b[i + half] * coeff_H[j];
      scalars_R[j] = high[j] ? b[i - half] * coeff_H[j] : a[i + half] * coeff_G[j];
    }
    const std::array<RistrettoPoint, 2> LR = commit(RoundScalars{scalars_L, scalars_R, high, c_L, c_R});
    std::array<CompressedRistretto, 2> encoded;
    RistrettoPoint::compress_batch(LR, encoded);  // one exponentiation for both
    const Scalar u = record_round(transcript, proof, encoded[0], encoded[1]);
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
  for (auto& k : scalars_L) k.wipe();
  for (auto& k : scalars_R) k.wipe();
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
  const auto through_tables = [&](const RoundScalars& round) {
    return shifted ? commitments_through(round, G_shifted, H_shifted, Q)
                   : commitments_through(round, G_tables, H_tables, Q);
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
    MaterialisedScratch scratch;
    const auto on_materialised = [&](const RoundScalars& round) {
      return materialised_commitments(round, G, H, Q, scratch);
    };
    size_t tail_n = n;
    unfolded_rounds(transcript, proof, a, b, tail_G, tail_H, tail_n, 1, on_materialised);
    scratch.wipe();
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
