// Aggregated Bulletproofs range proofs, byte-compatible with dalek-cryptography/bulletproofs.
//
// A proof shows that each of m Pedersen commitments V_j = v_j·B + r_j·B̃ opens to a value
// in [0, 2^n), for n in {8, 16, 32, 64} and m a power of two. Its encoding is
// A ‖ S ‖ T_1 ‖ T_2 ‖ t_x ‖ t_x_blinding ‖ e_blinding ‖ (L_k ‖ R_k)_k ‖ a ‖ b,
// (2·log2(n·m) + 9)·32 bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bp/errors.hpp"
#include "bp/generators.hpp"
#include "bp/inner_product_proof.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"
#include "bp/transcript.hpp"

namespace bp {

struct RangeProof {
  CompressedRistretto A, S, T_1, T_2;
  Scalar t_x, t_x_blinding, e_blinding;
  InnerProductProof ipp;

  struct Proved;  // the proof and the commitments it is about

  // Proves that every value is below 2^n, with fresh randomness from libsodium. The
  // transcript should be created with a label that names the application.
  static Result<Proved> prove_multiple(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                       Transcript& transcript, std::span<const uint64_t> values,
                                       std::span<const Scalar> blindings, size_t n);
  static Result<Proved> prove_single(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                     Transcript& transcript, uint64_t value, const Scalar& blinding, size_t n);

  // Verifies against the commitments (m = commitments.size()), variable time (public data).
  Status verify_multiple(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, Transcript& transcript,
                         std::span<const CompressedRistretto> commitments, size_t n) const;
  Status verify_single(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, Transcript& transcript,
                       const CompressedRistretto& commitment, size_t n) const {
    return verify_multiple(bp_gens, pc_gens, transcript, {&commitment, 1}, n);
  }

  std::vector<uint8_t> to_bytes() const;
  // Parses with the reference's rules: the five scalars must be canonical; points are
  // checked at verification.
  static Result<RangeProof> from_bytes(std::span<const uint8_t> bytes);

  // (2·log2(n·m) + 9)·32.
  static size_t serialized_size(size_t n, size_t m);
};

struct RangeProof::Proved {
  RangeProof proof;
  std::vector<CompressedRistretto> commitments;
};

bool is_valid_bitsize(size_t n);
bool is_power_of_two(size_t m);

}  // namespace bp
