// Range proofs through the C ABI: prove, verify and batch-verify bytes.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <sodium.h>

#include "bp/batch_verification.hpp"
#include "bp/mpc/limits.hpp"
#include "bp/random.hpp"
#include "bp/range_proof.hpp"
#include "edge.hpp"

using bp::c_abi::fail;
using bp::c_abi::guarded;
using bp::c_abi::succeed;

namespace {

constexpr size_t kMaxBits = 64;
using bp::mpc::kMaxPositions;  // the one limit, as the dealer and the decoder apply it

// Generators are costly to make and never change: core's process-wide set per party count
// (a smaller bit size uses a prefix of the 64-bit set).
const bp::BulletproofGens& gens_for(size_t m) { return bp::shared_generators(kMaxBits, m); }

const bp::PedersenGens& pedersen() { return bp::shared_pedersen(); }

// n and m as a proof allows them; the message names what is wrong.
const char* shape_problem(size_t m, size_t n) {
  if (!bp::is_valid_bitsize(n)) return "n must be 8, 16, 32 or 64";
  if (m == 0 || m > kMaxPositions || !bp::is_power_of_two(m)) return "m must be a power of two from 1 to 256";
  return nullptr;
}

std::vector<bp::CompressedRistretto> read_points(const uint8_t* bytes, size_t m) {
  std::vector<bp::CompressedRistretto> points(m);
  for (size_t j = 0; j < m; ++j) std::memcpy(points[j].bytes.data(), bytes + 32 * j, 32);
  return points;
}

}  // namespace

extern "C" {

void bp_blinding_random(uint8_t blinding[32]) {
  if (blinding == nullptr) return;
  bp::SystemRandom rng;
  auto s = bp::Scalar::random(rng);
  auto bytes = s.to_bytes();
  std::memcpy(blinding, bytes.data(), 32);
  sodium_memzero(bytes.data(), bytes.size());
  s.wipe();
}

int bp_prove(const uint64_t* values, const uint8_t* blindings, size_t m, size_t n, const char* label,
             uint8_t* commitments_out, uint8_t** proof, size_t* proof_len, bp_error* err) {
  return guarded(err, [&] {
    if (values == nullptr || blindings == nullptr || label == nullptr || commitments_out == nullptr ||
        proof == nullptr || proof_len == nullptr)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "a required pointer is NULL");
    *proof = nullptr;
    *proof_len = 0;
    if (const char* why = shape_problem(m, n)) return fail(err, BP_ERR_INVALID_ARGUMENT, why);
    bp::c_abi::SecretWitness witness;
    if (int status = witness.read(values, blindings, m, err)) return status;
    bp::Transcript transcript(label);
    auto proved =
        bp::RangeProof::prove_multiple(gens_for(m), pedersen(), transcript, witness.values, witness.blindings, n);
    if (!proved) return fail(err, BP_ERR_INVALID_ARGUMENT, std::string(bp::describe(proved.error())));
    return bp::c_abi::hand_out_proof(proved->proof.to_bytes(), proved->commitments, commitments_out, proof, proof_len,
                                     err);
  });
}

int bp_verify(const uint8_t* proof, size_t proof_len, const uint8_t* commitments, size_t m, size_t n, const char* label,
              bp_error* err) {
  return guarded(err, [&] {
    if (proof == nullptr || commitments == nullptr || label == nullptr)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "a required pointer is NULL");
    if (const char* why = shape_problem(m, n)) return fail(err, BP_ERR_INVALID_ARGUMENT, why);
    auto parsed = bp::RangeProof::from_bytes({proof, proof_len});
    if (!parsed)
      return fail(err, BP_ERR_INVALID_ARGUMENT,
                  "the proof cannot be parsed: " + std::string(bp::describe(parsed.error())));
    const auto points = read_points(commitments, m);
    bp::Transcript transcript(label);
    const auto status = parsed->verify_multiple(gens_for(m), pedersen(), transcript, points, n);
    if (!status) return fail(err, BP_ERR_VERIFY_FAILED, std::string(bp::describe(status.error())));
    return succeed(err);
  });
}

int bp_verify_batch(const bp_batch_item* items, size_t count, size_t* failed, size_t* failed_count, bp_error* err) {
  return guarded(err, [&] {
    if (items == nullptr || failed == nullptr || failed_count == nullptr)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "a required pointer is NULL");
    *failed_count = 0;
    for (size_t i = 0; i < count; ++i) {
      if (!bp::c_abi::sized(&items[i]) || items[i].proof == nullptr || items[i].commitments == nullptr ||
          items[i].label == nullptr)
        return fail(err, BP_ERR_INVALID_ARGUMENT, "item " + std::to_string(i) + " has a NULL field or a wrong size");
      if (const char* why = shape_problem(items[i].m, items[i].n))
        return fail(err, BP_ERR_INVALID_ARGUMENT, "item " + std::to_string(i) + ": " + why);
    }
    // Parse what parses; the rest fail by themselves.
    std::vector<bp::RangeProof> proofs;
    std::vector<std::vector<bp::CompressedRistretto>> points;
    std::vector<bp::Transcript> transcripts;
    std::vector<size_t> index;  // of each parsed proof in items
    std::vector<size_t> unparsable;
    size_t max_m = 1;
    proofs.reserve(count);
    points.reserve(count);
    transcripts.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      auto parsed = bp::RangeProof::from_bytes({items[i].proof, items[i].proof_len});
      if (!parsed) {
        unparsable.push_back(i);
        continue;
      }
      proofs.push_back(std::move(*parsed));
      points.push_back(read_points(items[i].commitments, items[i].m));
      transcripts.emplace_back(items[i].label);
      index.push_back(i);
      max_m = std::max(max_m, items[i].m);
    }
    std::vector<bp::BatchItem> batch;
    for (size_t k = 0; k < proofs.size(); ++k)
      batch.push_back({&proofs[k], points[k], items[index[k]].n, &transcripts[k]});
    const auto outcome = bp::verify_batch(gens_for(max_m), pedersen(), batch);
    std::vector<size_t> all = unparsable;
    for (size_t k : outcome.failed) all.push_back(index[k]);
    std::sort(all.begin(), all.end());
    for (size_t i = 0; i < all.size(); ++i) failed[i] = all[i];
    *failed_count = all.size();
    if (all.empty()) return succeed(err);
    return fail(err, BP_ERR_VERIFY_FAILED,
                std::to_string(all.size()) + " of " + std::to_string(count) + " proofs failed");
  });
}

}  // extern "C"
