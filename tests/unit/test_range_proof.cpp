// Range proofs against rangeproofs.json: every reference proof verifies, every negative
// case is rejected, the legacy v1 proofs verify, and with the reference's deterministic
// RNG our prover reproduces every proof byte for byte.
#include <doctest/doctest.h>
#include <sodium.h>

#include "bp/detail/op_tally.hpp"
#include "bp/hex.hpp"
#include "bp/range_proof.hpp"
#include "bp/transcript_protocol.hpp"
#include "chacha_rng.hpp"
#include "range/prove_with_rng.hpp"
#include "vectors.hpp"

using namespace bp;
using bp::test::hex_bytes;
using bp::test::hex_point;

namespace {

using bp::test::gens;
using bp::test::pc;

std::vector<CompressedRistretto> points_of(const nlohmann::json& arr) {
  std::vector<CompressedRistretto> out;
  for (const auto& h : arr) out.push_back(hex_point(h));
  return out;
}

Status verify_bytes(const std::vector<uint8_t>& bytes, const std::vector<CompressedRistretto>& Vs, size_t n,
                    const std::string& label) {
  auto proof = RangeProof::from_bytes(bytes);
  if (!proof) return proof.error();
  Transcript t(label);
  return proof->verify_multiple(gens(), pc(), t, Vs, n);
}

std::array<uint8_t, 32> seed_of(const std::string& h) {
  const auto b = hex_bytes(h);
  std::array<uint8_t, 32> seed;
  std::copy(b.begin(), b.end(), seed.begin());
  return seed;
}

}  // namespace

TEST_CASE("the deterministic RNG is the reference's ChaCha20 stream") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  for (const auto& check : doc["rng_check"]) {
    bp::test::ChaCha20Rng rng(seed_of(check["seed_hex"]));
    std::vector<uint8_t> first(128);
    rng.fill({first.data(), 50});  // split reads must continue the same stream
    rng.fill({first.data() + 50, 78});
    CHECK(to_hex(first) == check["first_128_bytes"].get<std::string>());
  }
}

TEST_CASE("every reference proof verifies, and ours reproduces it byte for byte") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  int cases = 0;
  for (const auto& tc : doc["cases"]) {
    const std::string id = tc["id"];
    CAPTURE(id);
    const size_t n = tc["n"], m = tc["m"];
    const auto Vs = points_of(tc["commitments"]);
    const auto proof_bytes = hex_bytes(tc["proof"]);
    CHECK(proof_bytes.size() == RangeProof::serialized_size(n, m));
    CHECK(verify_bytes(proof_bytes, Vs, n, tc["transcript_label"]).ok());

    bp::test::ChaCha20Rng rng(seed_of(tc["rng_seed_hex"]));
    std::vector<uint64_t> values;
    std::vector<Scalar> blindings;
    for (const auto& v : tc["values"]) values.push_back(std::stoull(v.get<std::string>()));
    for (size_t j = 0; j < m; ++j) blindings.push_back(Scalar::random(rng));
    for (size_t j = 0; j < m; ++j) CHECK(to_hex(blindings[j].to_bytes()) == tc["blindings"][j].get<std::string>());
    Transcript t(tc["transcript_label"].get<std::string>());
    auto proved = detail::prove_multiple_with_rng(gens(), pc(), t, values, blindings, n, rng);
    REQUIRE(proved.ok());
    CHECK(proved->commitments == Vs);
    CHECK(to_hex(proved->proof.to_bytes()) == tc["proof"].get<std::string>());
    // The prover's transcript ends in the same state as the reference's: the next challenge agrees.
    ++cases;
  }
  CHECK(cases == 9);
}

TEST_CASE("the challenges replayed from a reference proof match") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  const auto& tc = doc["cases"][4];  // n64_m2
  const auto proof = *RangeProof::from_bytes(hex_bytes(tc["proof"]));
  Transcript t(tc["transcript_label"].get<std::string>());
  rangeproof_domain_sep(t, tc["n"], tc["m"]);
  for (const auto& V : tc["commitments"]) append_point(t, "V", hex_point(V));
  append_point(t, "A", proof.A);
  append_point(t, "S", proof.S);
  CHECK(to_hex(challenge_scalar(t, "y").to_bytes()) == tc["challenges"]["y"].get<std::string>());
  CHECK(to_hex(challenge_scalar(t, "z").to_bytes()) == tc["challenges"]["z"].get<std::string>());
}

TEST_CASE("every negative case is rejected") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  int rejected = 0;
  for (const auto& tc : doc["negative_cases"]) {
    CAPTURE(tc["id"].get<std::string>());
    const auto result =
        verify_bytes(hex_bytes(tc["proof"]), points_of(tc["commitments"]), tc["n"], tc["transcript_label"]);
    CHECK_FALSE(result.ok());
    if (!result.ok()) {
      const std::string expected = tc["reference_error"];
      const ProofError want = expected == "FormatError" ? ProofError::FormatError : ProofError::VerificationError;
      CHECK(result.error() == want);
    }
    ++rejected;
  }
  CHECK(rejected > 50);
}

TEST_CASE("the sixteen legacy v1 proofs verify") {
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  int verified = 0;
  for (const auto& tc : doc["legacy_v1_vectors"]) {
    CAPTURE(tc["id"].get<std::string>());
    CHECK(verify_bytes(hex_bytes(tc["proof"]), points_of(tc["commitments"]), tc["n"], tc["transcript_label"]).ok());
    ++verified;
  }
  CHECK(verified == 16);
}

TEST_CASE("prove and verify round trips over random values, and any tampered byte is rejected") {
  for (size_t n : {8, 16, 32, 64}) {
    for (size_t m : {1, 2, 4}) {
      CAPTURE(n);
      CAPTURE(m);
      std::vector<uint64_t> values(m);
      std::vector<Scalar> blindings(m);
      SystemRandom rng;
      for (size_t j = 0; j < m; ++j) {
        randombytes_buf(&values[j], sizeof values[j]);
        if (n < 64) values[j] &= (uint64_t{1} << n) - 1;
        if (j == 1) values[j] = n == 64 ? UINT64_MAX : (uint64_t{1} << n) - 1;  // the largest value
        if (j == 2) values[j] = 0;
        blindings[j] = Scalar::random(rng);
      }
      Transcript t("round trip");
      auto proved = RangeProof::prove_multiple(gens(), pc(), t, values, blindings, n);
      REQUIRE(proved.ok());
      const auto bytes = proved->proof.to_bytes();
      CHECK(bytes.size() == RangeProof::serialized_size(n, m));
      CHECK(verify_bytes(bytes, proved->commitments, n, "round trip").ok());
      CHECK_FALSE(verify_bytes(bytes, proved->commitments, n, "another label").ok());
      // Flip one bit in a handful of random positions (and always the first and last byte).
      for (int k = 0; k < 6; ++k) {
        auto tampered = bytes;
        const size_t pos = k == 0 ? 0 : k == 1 ? bytes.size() - 1 : randombytes_uniform(bytes.size());
        tampered[pos] ^= static_cast<uint8_t>(1u << randombytes_uniform(8));
        CAPTURE(pos);
        CHECK_FALSE(verify_bytes(tampered, proved->commitments, n, "round trip").ok());
      }
    }
  }
}

TEST_CASE("a shape's first check reads the generators themselves, later ones their tables: both judge alike") {
  // Proved with the shared generators, checked with fresh ones, so that only the checks
  // build (or do not build) the fresh ones' tables. m = 16 also takes the shifted tables.
  for (size_t m : {2, 16}) {
    CAPTURE(m);
    const size_t n = 64;
    std::vector<uint64_t> values(m, 7);
    std::vector<Scalar> blindings(m);
    SystemRandom rng;
    for (auto& b : blindings) b = Scalar::random(rng);
    Transcript t("tables");
    auto proved = RangeProof::prove_multiple(gens(), pc(), t, values, blindings, n);
    REQUIRE(proved.ok());
    const auto bytes = proved->proof.to_bytes();
    auto tampered = bytes;
    tampered[bytes.size() - 40] ^= 1;  // inside the inner-product argument's scalars
    const auto check = [&](const BulletproofGens& fresh, const std::vector<uint8_t>& b) {
      auto proof = RangeProof::from_bytes(b);
      if (!proof) return false;
      Transcript tv("tables");
      return proof->verify_multiple(fresh, pc(), tv, proved->commitments, n).ok();
    };
    {
      const BulletproofGens fresh(n, m);
      CHECK_FALSE(check(fresh, tampered));  // the points themselves
      CHECK(fresh.table_bytes() == 0);
      CHECK(check(fresh, bytes));  // the second check of the shape: tables
      CHECK(fresh.table_bytes() > 0);
      CHECK_FALSE(check(fresh, tampered));
    }
    {
      const BulletproofGens fresh(n, m);
      CHECK(check(fresh, bytes));
      CHECK(fresh.table_bytes() == 0);
      CHECK_FALSE(check(fresh, tampered));
      CHECK(fresh.table_bytes() > 0);
    }
  }
}

TEST_CASE("typed errors: out of range, bad sizes, identity points, truncated and overlong input") {
  SystemRandom rng;
  const Scalar r = Scalar::random(rng);
  Transcript t1("errors");
  CHECK(RangeProof::prove_single(gens(), pc(), t1, 256, r, 8).error() == ProofError::ValueOutOfRange);
  Transcript t2("errors");
  CHECK(RangeProof::prove_single(gens(), pc(), t2, 5, r, 12).error() == ProofError::InvalidBitsize);
  Transcript t3("errors");
  const uint64_t three[3] = {1, 2, 3};
  const Scalar rs[3] = {r, r, r};
  CHECK(RangeProof::prove_multiple(gens(), pc(), t3, three, rs, 8).error() == ProofError::InvalidAggregation);
  Transcript t4("errors");
  CHECK(RangeProof::prove_multiple(gens(), pc(), t4, three, {rs, 2}, 8).error() == ProofError::WrongNumBlindingFactors);

  Transcript t5("errors");
  auto proved = RangeProof::prove_single(gens(), pc(), t5, 200, r, 8);
  REQUIRE(proved.ok());
  const auto bytes = proved->proof.to_bytes();
  const auto& V = proved->commitments;
  // An identity encoding in place of A, S, T_1, T_2, L_0 or R_0.
  for (size_t offset : {0, 32, 64, 96, 224, 256}) {
    auto tampered = bytes;
    std::fill(tampered.begin() + offset, tampered.begin() + offset + 32, 0);
    CHECK(verify_bytes(tampered, V, 8, "errors").error() == ProofError::VerificationError);
  }
  // A non-canonical scalar (t_x = l).
  auto noncanon = bytes;
  const auto l = hex_bytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
  std::copy(l.begin(), l.end(), noncanon.begin() + 128);
  CHECK(verify_bytes(noncanon, V, 8, "errors").error() == ProofError::FormatError);
  // Truncated, overlong, and not a multiple of 32.
  CHECK_FALSE(verify_bytes({bytes.begin(), bytes.end() - 32}, V, 8, "errors").ok());
  CHECK_FALSE(verify_bytes({bytes.begin(), bytes.end() - 64}, V, 8, "errors").ok());
  auto longer = bytes;
  longer.insert(longer.end(), 64, 0);
  CHECK_FALSE(verify_bytes(longer, V, 8, "errors").ok());
  CHECK(verify_bytes({bytes.begin(), bytes.end() - 1}, V, 8, "errors").error() == ProofError::FormatError);
  CHECK(verify_bytes({}, V, 8, "errors").error() == ProofError::FormatError);
  // Verified with the wrong n or with no commitments.
  CHECK_FALSE(verify_bytes(bytes, V, 16, "errors").ok());
  CHECK_FALSE(verify_bytes(bytes, {}, 8, "errors").ok());
  CHECK(verify_bytes(bytes, V, 8, "errors").ok());
}

TEST_CASE("aggregation up to m = 64") {
  std::vector<uint64_t> values(64);
  std::vector<Scalar> blindings(64);
  SystemRandom rng;
  for (size_t j = 0; j < 64; ++j) {
    values[j] = j * 1000003;
    blindings[j] = Scalar::random(rng);
  }
  Transcript t("m64");
  auto proved = RangeProof::prove_multiple(gens(), pc(), t, values, blindings, 32);
  REQUIRE(proved.ok());
  CHECK(proved->proof.to_bytes().size() == RangeProof::serialized_size(32, 64));
  CHECK(verify_bytes(proved->proof.to_bytes(), proved->commitments, 32, "m64").ok());
}

// bp bench --limit's counts of a verification: every point of the proof and the commitment
// decoded once (A, S, T1, T2, then L and R of each of log2(64) = 6 rounds, and V), and one
// multiscalar multiplication over all of them and the generators.
TEST_CASE("a verification of m = 1 decodes its 17 points once, in one multiscalar multiplication") {
  SystemRandom rng;
  const std::vector<uint64_t> values = {12345};
  const std::vector<Scalar> blindings = {Scalar::random(rng)};
  Transcript t("tally");
  auto proved = RangeProof::prove_multiple(gens(), pc(), t, values, blindings, 64);
  REQUIRE(proved.ok());
  const auto proof = RangeProof::from_bytes(proved->proof.to_bytes());
  REQUIRE(proof.ok());
  detail::OpTally tally;
  detail::install_op_tally(&tally);
  Transcript v("tally");
  const bool ok = proof->verify_multiple(gens(), pc(), v, proved->commitments, 64).ok();
  detail::install_op_tally(nullptr);
  CHECK(ok);
  CHECK(tally.decompressions == 4 + 2 * 6 + 1);
  CHECK(tally.compressions == 0);
  CHECK(tally.msm_calls == 1);
  CHECK(tally.msm_points >= 2 * 64 + 2 * 6 + 4);
}
