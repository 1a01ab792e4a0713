// Proofs for `bp bench` to check: random witnesses, sets of proofs each under its own
// label, and one batch verification of a set (bench.cpp's rows and the thread sweep).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "bp/generators.hpp"
#include "bp/range_proof.hpp"

namespace bp::cli {

// m random values of n bits and their blindings.
struct Witness {
  std::vector<uint64_t> values;
  std::vector<Scalar> blindings;
};
Witness random_witness(size_t n, size_t m);

// `count` proofs of m values of n bits, each under its own label.
struct ProofSet {
  std::vector<RangeProof> proofs;
  std::vector<std::vector<CompressedRistretto>> commitments;
};
ProofSet make_proofs(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n, size_t m, size_t count);

// One batch verification of the whole set (made by make_proofs) on `threads` threads.
void verify_proof_set(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, const ProofSet& set,
                      unsigned threads);

// `bp bench --threads`: batch verification on 1, 2, 4, 8 and 16 threads (bench_threads.cpp).
int print_thread_rows(bool quick, bool json, const std::function<void()>& yardstick);

// `bp bench --party`: what the largest sessions the limits admit cost one party, each step
// cold in a process of its own (bench_party.cpp).
int print_party_rows(bool json);

}  // namespace bp::cli
