// Batch verification: the reference's proofs of every size verify together; a batch that
// holds bad proofs names exactly those (negative vectors, random tampering), with one
// thread or several.
#include <doctest/doctest.h>
#include <sodium.h>

#include <atomic>
#include <deque>
#include <set>
#include <stdexcept>
#include <thread>

#include "bp/batch_verification.hpp"
#include "bp/random.hpp"
#include "proof/parallel_parts.hpp"
#include "vectors.hpp"

using namespace bp;
using bp::test::gens;
using bp::test::hex_bytes;
using bp::test::hex_point;
using bp::test::pc;

namespace {

// Owns what the batch items point at.
struct Batch {
  std::deque<RangeProof> proofs;
  std::deque<std::vector<CompressedRistretto>> commitments;
  std::deque<Transcript> transcripts;
  std::vector<size_t> ns;

  void add(RangeProof proof, std::vector<CompressedRistretto> Vs, size_t n, const std::string& label) {
    proofs.push_back(std::move(proof));
    commitments.push_back(std::move(Vs));
    transcripts.emplace_back(label);
    ns.push_back(n);
  }
  BatchOutcome verify(unsigned threads = 1) {
    std::vector<BatchItem> items;
    for (size_t k = 0; k < proofs.size(); ++k) items.push_back({&proofs[k], commitments[k], ns[k], &transcripts[k]});
    return verify_batch(gens(), pc(), items, threads);
  }
};

std::vector<CompressedRistretto> points_of(const nlohmann::json& list) {
  std::vector<CompressedRistretto> out;
  for (const auto& h : list) out.push_back(hex_point(h));
  return out;
}

// Adds every reference proof that parses from `section`; returns how many.
size_t add_section(Batch& batch, const nlohmann::json& section) {
  size_t added = 0;
  for (const auto& tc : section) {
    auto proof = RangeProof::from_bytes(hex_bytes(tc["proof"]));
    if (!proof) continue;
    batch.add(std::move(*proof), points_of(tc["commitments"]), tc["n"], tc["transcript_label"]);
    ++added;
  }
  return added;
}

}  // namespace

TEST_CASE("every reference proof, of every n and m, verifies in one batch") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    Batch batch;
    CHECK(add_section(batch, doc["cases"]) == 9);
    CHECK(add_section(batch, doc["legacy_v1_vectors"]) == 16);
    const auto outcome = batch.verify(threads);
    CHECK(outcome.ok());
  }
  Batch empty;
  CHECK(empty.verify().ok());
}

TEST_CASE("the negative vectors in a batch of good proofs are named, and only they") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    Batch batch;
    const size_t good = add_section(batch, doc["cases"]);
    const size_t bad = add_section(batch, doc["negative_cases"]);
    REQUIRE(bad > 10);
    const auto outcome = batch.verify(threads);
    std::vector<size_t> expected;
    for (size_t k = good; k < good + bad; ++k) expected.push_back(k);
    CHECK(outcome.failed == expected);
  }
}

TEST_CASE("random batches with random tampering: the failed set is exactly the tampered set") {
  SystemRandom rng;
  for (int round = 0; round < 4; ++round) {
    Batch batch;
    std::set<size_t> tampered;
    for (size_t k = 0; k < 12; ++k) {
      const size_t n = size_t{8} << (randombytes_uniform(4));
      const size_t m = size_t{1} << randombytes_uniform(3);
      std::vector<uint64_t> values(m);
      std::vector<Scalar> blindings(m);
      for (size_t j = 0; j < m; ++j) {
        values[j] = randombytes_random() & ((n == 64 ? ~0ull : (1ull << n) - 1));
        blindings[j] = Scalar::random(rng);
      }
      const std::string label = "batch " + std::to_string(k);
      Transcript t(label);
      auto proved = RangeProof::prove_multiple(gens(), pc(), t, values, blindings, n);
      REQUIRE(proved.ok());
      if (randombytes_uniform(3) == 0) {
        tampered.insert(k);
        switch (randombytes_uniform(3)) {
          case 0: proved->proof.t_x += Scalar::one(); break;
          case 1: proved->proof.ipp.a += Scalar::one(); break;
          default: std::swap(proved->proof.A, proved->proof.S); break;
        }
      }
      batch.add(std::move(proved->proof), std::move(proved->commitments), n, label);
    }
    const auto outcome = batch.verify(round % 2 + 1);
    CHECK(std::set<size_t>(outcome.failed.begin(), outcome.failed.end()) == tampered);
  }
}

// The workers a batch's parts run on (proof/parallel_parts.hpp): every part runs exactly
// once, whoever runs it; callers at once, a part that runs a job of its own, and a part
// that throws all end.
TEST_CASE("parts run once each, from several callers at once, nested, and failing") {
  for (unsigned parts : {1u, 2u, 3u, 16u}) {
    std::vector<std::atomic<int>> ran(parts);
    detail::run_parts(parts, [&](unsigned k) { ++ran[k]; });
    for (unsigned k = 0; k < parts; ++k) CHECK(ran[k] == 1);
  }
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 6; ++c)
    callers.emplace_back([&total] {
      for (int round = 0; round < 50; ++round)
        detail::run_parts(4, [&total](unsigned) { detail::run_parts(2, [&total](unsigned) { ++total; }); });
    });
  for (auto& c : callers) c.join();
  CHECK(total == 6 * 50 * 4 * 2);
  CHECK_THROWS_AS(detail::run_parts(3,
                                    [](unsigned k) {
                                      if (k == 2) throw std::runtime_error("part 2");
                                    }),
                  std::runtime_error);
  std::atomic<int> after{0};
  detail::run_parts(3, [&after](unsigned) { ++after; });  // the workers still serve
  CHECK(after == 3);
}
