// The inner-product argument (Bulletproofs §3, in the reference's optimised form): proves
// knowledge of vectors a, b with P = <a, G> + <b, H'> + <a, b>·Q using log2(N) pairs (L, R).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bp/errors.hpp"
#include "bp/precomputed.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"
#include "bp/transcript.hpp"

namespace bp {

struct InnerProductProof {
  std::vector<CompressedRistretto> L_vec;
  std::vector<CompressedRistretto> R_vec;
  Scalar a;
  Scalar b;

  // G_factors and H_factors scale the generators (the verifier's H' = y^-i·H_i) without
  // materialising the scaled points. All vectors have the same power-of-two length.
  // a_vec and b_vec are consumed (and wiped); they must be public to whoever learns the
  // proof (in a range proof they are l(x) and r(x), masked by the prover's blinding vectors),
  // because the multiscalar multiplications here are variable time.
  //
  // The generators are never folded round by round: round k's L and R are computed on the
  // original G_i and H_i (through their precomputed tables) with each scalar multiplied by
  // the product of the challenges the folding would have applied; from N = 128, after four
  // rounds, the N/16 folded generators are computed once and the remaining rounds run the
  // same way on them. The proof is the same; the work is not.
  // Shifted tables of the same generators, when given, serve those rounds instead (the
  // caller builds and passes them when shifted_tables_pay(N) says they repay).
  static InnerProductProof create(Transcript& transcript, const RistrettoPoint& Q, std::span<const Scalar> G_factors,
                                  std::span<const Scalar> H_factors, std::span<const VartimeBaseTable* const> G_tables,
                                  std::span<const VartimeBaseTable* const> H_tables, std::vector<Scalar> a_vec,
                                  std::vector<Scalar> b_vec, std::span<const ShiftedBaseTable* const> G_shifted = {},
                                  std::span<const ShiftedBaseTable* const> H_shifted = {});

  // Replays the transcript and returns the scalars of the verification equation:
  // u_k², u_k⁻² for each round and s_i for each generator index.
  struct VerificationScalars {
    std::vector<Scalar> u_sq, u_inv_sq, s;
    Scalar extra_inv;  // 1/extra, from the same batch inversion
  };
  // `extra` (nonzero) is inverted together with the challenges: the range proof's verifier
  // needs 1/y, and one inversion costs as much as three hundred multiplications.
  Result<VerificationScalars> verification_scalars(size_t n, Transcript& transcript,
                                                   const Scalar& extra = Scalar::one()) const;
  // verification_scalars in two halves, so that a batch of proofs can share one inversion:
  // the transcript's round challenges u_k, then the scalars from the u_k and their inverses
  // (extra_inv left at zero).
  Result<std::vector<Scalar>> verification_challenges(size_t n, Transcript& transcript) const;
  static VerificationScalars scalars_from_challenges(std::span<const Scalar> u, std::span<const Scalar> u_inv);

  size_t serialized_size() const { return (L_vec.size() * 2 + 2) * 32; }
  void append_bytes(std::vector<uint8_t>& out) const;
  static Result<InnerProductProof> from_bytes(std::span<const uint8_t> bytes);
};

Scalar inner_product(std::span<const Scalar> a, std::span<const Scalar> b);

}  // namespace bp
