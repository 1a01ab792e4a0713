#include "bench_proofs.hpp"

#include <sodium.h>

#include <string>

#include "bp/batch_verification.hpp"
#include "bp/random.hpp"

namespace bp::cli {

Witness random_witness(size_t n, size_t m) {
  SystemRandom rng;
  Witness w{std::vector<uint64_t>(m), std::vector<Scalar>(m)};
  for (size_t j = 0; j < m; ++j) {
    randombytes_buf(&w.values[j], sizeof w.values[j]);
    if (n < 64) w.values[j] &= (uint64_t{1} << n) - 1;
    w.blindings[j] = Scalar::random(rng);
  }
  return w;
}

ProofSet make_proofs(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n, size_t m, size_t count) {
  ProofSet set;
  for (size_t k = 0; k < count; ++k) {
    const auto [values, blindings] = random_witness(n, m);
    Transcript t("bench batch " + std::to_string(k));
    auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, t, values, blindings, n);
    if (!proved) std::abort();
    set.proofs.push_back(std::move(proved->proof));
    set.commitments.push_back(std::move(proved->commitments));
  }
  return set;
}

void verify_proof_set(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, const ProofSet& set,
                      unsigned threads) {
  const size_t count = set.proofs.size();
  std::vector<Transcript> transcripts;
  transcripts.reserve(count);
  std::vector<BatchItem> items;
  for (size_t k = 0; k < count; ++k) {
    transcripts.emplace_back("bench batch " + std::to_string(k));
    items.push_back({&set.proofs[k], set.commitments[k], 64, &transcripts.back()});
  }
  if (!verify_batch(bp_gens, pc_gens, items, threads).ok()) std::abort();
}

}  // namespace bp::cli
