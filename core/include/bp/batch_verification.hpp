// Batch verification: many range proofs, of any mix of n and m, checked with one
// multiscalar multiplication. Each proof's verification equation is multiplied by its own
// random weight (libsodium) before they are added, so a batch with a bad proof passes only
// with probability about 1/l. When a batch fails, bisection over the same equations (new
// weights each time) names exactly the proofs that fail on their own.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "bp/range_proof.hpp"

namespace bp {

struct BatchItem {
  const RangeProof* proof = nullptr;
  std::span<const CompressedRistretto> commitments;  // m of them
  size_t n = 64;
  Transcript* transcript = nullptr;  // fresh, made with the proof's label; consumed
};

struct BatchOutcome {
  std::vector<size_t> failed;  // indices into the items, ascending
  bool ok() const { return failed.empty(); }
};

// Variable time (public data only). `threads` > 1 splits the batch into that many parts
// verified concurrently. The generators must cover the largest n and m in the batch.
BatchOutcome verify_batch(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, std::span<const BatchItem> items,
                          unsigned threads = 1);

}  // namespace bp
