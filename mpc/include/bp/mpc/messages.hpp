// The messages of the aggregation protocol. Party → dealer messages are the core's
// (BitCommitment, PolyCommitment, ProofShare). Dealer → party challenges carry, beyond
// the reference's y, z and x, every party's commitments in position order, so each party
// recomputes the challenge from the transcript itself and the dealer cannot choose it.
#pragma once

#include <vector>

#include "bp/aggregation.hpp"
#include "bp/range_proof.hpp"

namespace bp::mpc {

using bp::BitCommitment;
using bp::PolyCommitment;
using bp::ProofShare;

struct BitChallengeMsg {
  Scalar y, z;
  std::vector<BitCommitment> bit_commitments;  // all padded_m of them, padding included
};

struct PolyChallengeMsg {
  Scalar x;
  std::vector<PolyCommitment> poly_commitments;  // all padded_m of them
};

// What every party receives at the end.
struct AggregationResult {
  // The bit size; `n` is its old name, kept for one release (see SessionParams).
  union {
    size_t bits = 0;
    [[deprecated("AggregationResult::n is the bit size: use bits")]] size_t n;
  };
  std::string label;                             // the transcript label to verify under
  std::vector<CompressedRistretto> commitments;  // V_0 .. V_{padded_m-1}
  std::vector<size_t> padding_positions;         // positions the dealer filled in
  RangeProof proof;

  // AggregationResult{bits, label, commitments, padding, proof} as before the union.
  AggregationResult() = default;
  AggregationResult(size_t bit_size, std::string transcript_label, std::vector<CompressedRistretto> all_commitments,
                    std::vector<size_t> padding, RangeProof aggregated)
      : bits(bit_size),
        label(std::move(transcript_label)),
        commitments(std::move(all_commitments)),
        padding_positions(std::move(padding)),
        proof(std::move(aggregated)) {}
};

}  // namespace bp::mpc
