// The computations of an aggregated range proof, split the way the parties and the dealer
// split them (Bulletproofs §4.3; the reference's range_proof_mpc): party j commits to the
// bits of its value, answers the challenges y, z and then x, and the dealer sums the
// commitments, draws the challenges from the transcript and assembles the proof.
//
// These are plain functions over plain data. The single-process prover (RangeProof) calls
// them in order; mpc/ wraps them in type-state classes that enforce the order across a
// network and validate every message.
#pragma once

#include <cstdint>
#include <vector>

#include "bp/errors.hpp"
#include "bp/generators.hpp"
#include "bp/random.hpp"
#include "bp/range_proof.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"
#include "bp/transcript.hpp"

namespace bp {

// ---- Messages (public values) ----

struct BitCommitment {
  CompressedRistretto V_j, A_j, S_j;
  friend bool operator==(const BitCommitment&, const BitCommitment&) = default;
};
struct BitChallenge {
  Scalar y, z;
};
struct PolyCommitment {
  CompressedRistretto T_1_j, T_2_j;
  friend bool operator==(const PolyCommitment&, const PolyCommitment&) = default;
};
struct PolyChallenge {
  Scalar x;
};
struct ProofShare {
  Scalar t_x, t_x_blinding, e_blinding;
  std::vector<Scalar> l_vec, r_vec;
  friend bool operator==(const ProofShare&, const ProofShare&) = default;
};

// ---- Party secrets, wiped when destroyed ----

// After round 1: the witness and the blinding vectors s_L, s_R.
struct PartyBitSecrets {
  size_t j = 0, n = 0;
  uint64_t v = 0;
  Scalar v_blinding, a_blinding, s_blinding;
  std::vector<Scalar> s_L, s_R;

  PartyBitSecrets() = default;
  PartyBitSecrets(PartyBitSecrets&&) = default;
  PartyBitSecrets& operator=(PartyBitSecrets&&) = default;
  ~PartyBitSecrets();
};

// After round 2: the coefficients of l(X), r(X), t(X) and the blindings of T_1, T_2.
struct PartyPolySecrets {
  size_t j = 0, n = 0;
  Scalar v_blinding, a_blinding, s_blinding, z, offset_zz;
  std::vector<Scalar> l0, l1, r0, r1;  // l(X) = l0 + l1·X, r(X) = r0 + r1·X
  Scalar t0, t1, t2;                   // t(X) = t0 + t1·X + t2·X²
  Scalar t_1_blinding, t_2_blinding;

  PartyPolySecrets() = default;
  PartyPolySecrets(PartyPolySecrets&&) = default;
  PartyPolySecrets& operator=(PartyPolySecrets&&) = default;
  ~PartyPolySecrets();
};

// ---- Party rounds. Randomness is drawn in the reference's order. ----

// V_j = v·B + v_blinding·B̃, A_j = <a_L, G_j> + <a_R, H_j> + a_blinding·B̃, S_j = <s_L, G_j> + <s_R, H_j> + s_blinding·B̃.
// Does not check v < 2^n (callers decide; an out-of-range party is caught by the dealer's audit).
BitCommitment party_commit_bits(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t j, size_t n,
                                uint64_t v, const Scalar& v_blinding, RandomSource& rng, PartyBitSecrets& out);

// T_1 = t1·B + t_1_blinding·B̃, T_2 likewise. Consumes the round-1 secrets.
PolyCommitment party_commit_poly(PartyBitSecrets&& secrets, const PedersenGens& pc_gens, const BitChallenge& c,
                                 RandomSource& rng, PartyPolySecrets& out);

// t_x = t(x), t_x_blinding, e_blinding = a_blinding + x·s_blinding, l = l(x), r = r(x). Consumes the secrets.
ProofShare party_prove_share(PartyPolySecrets&& secrets, const PolyChallenge& c);

// ---- Dealer steps over the aggregation transcript ----

// Appends every V_j, the sums A and S, and draws y, z. Fails if a commitment does not decode.
struct DealerBitRound {
  BitChallenge challenge;
  CompressedRistretto A, S;  // the sums, encoded once for the transcript and the proof
};
Result<DealerBitRound> dealer_bit_challenge(Transcript& t, std::span<const BitCommitment> commitments);

// Appends the sums T_1, T_2 and draws x.
struct DealerPolyRound {
  PolyChallenge challenge;
  CompressedRistretto T_1, T_2;
};
Result<DealerPolyRound> dealer_poly_challenge(Transcript& t, std::span<const PolyCommitment> commitments);

// Sums the shares, appends t_x, t_x_blinding, e_blinding, draws w and runs the inner-product
// argument on the concatenated l and r. Every share must have n entries in l_vec and r_vec.
RangeProof dealer_assemble(Transcript& t, const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n,
                           const DealerBitRound& bit_round, const DealerPolyRound& poly_round,
                           std::span<const ProofShare> shares);

// Checks party j's share against its own commitments and the challenges (the reference's
// audit_share). True when the share is consistent; public data only.
bool audit_share_vartime(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t j, size_t n,
                         const BitCommitment& bits, const BitChallenge& bit_challenge, const PolyCommitment& poly,
                         const PolyChallenge& poly_challenge, const ProofShare& share);

}  // namespace bp
