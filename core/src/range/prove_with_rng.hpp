// Test hook, not installed: the prover with a caller-chosen randomness source, so tests can
// replay the reference's deterministic ChaCha20 stream and compare proofs byte for byte.
#pragma once

#include "bp/random.hpp"
#include "bp/range_proof.hpp"

namespace bp::detail {

Result<RangeProof::Proved> prove_multiple_with_rng(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                   Transcript& transcript, std::span<const uint64_t> values,
                                                   std::span<const Scalar> blindings, size_t n, RandomSource& rng);

}  // namespace bp::detail
