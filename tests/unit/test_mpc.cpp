// The aggregation protocol's type-states: mpc.json replayed message by message and byte for
// byte, the reference's blame cases, random corruption (the blamed set is exactly the
// corrupted set), a dealer that tries to steer challenges, padding, and consumed states.
#include <doctest/doctest.h>
#include <sodium.h>

#include <algorithm>
#include <set>

#include "bp/hex.hpp"
#include "bp/mpc/dealer.hpp"
#include "bp/mpc/party.hpp"
#include "chacha_rng.hpp"
#include "state.hpp"
#include "vectors.hpp"

using namespace bp;
using namespace bp::mpc;
using bp::test::hex_bytes;

namespace {

using bp::test::gens;
using bp::test::pc;

// bincode (legacy options) of the reference's message structs, to compare whole messages.
struct Bincode {
  std::vector<uint8_t> out;
  void point(const CompressedRistretto& p) { out.insert(out.end(), p.bytes.begin(), p.bytes.end()); }
  void scalar(const Scalar& s) {
    const auto b = s.to_bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  void vec(const std::vector<Scalar>& v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(uint64_t(v.size()) >> (8 * i)));
    for (const auto& s : v) scalar(s);
  }
};
std::string bincode(const BitCommitment& c) {
  Bincode b;
  b.point(c.V_j);
  b.point(c.A_j);
  b.point(c.S_j);
  return to_hex(b.out);
}
std::string bincode(const BitChallengeMsg& c) {
  Bincode b;
  b.scalar(c.y);
  b.scalar(c.z);
  return to_hex(b.out);
}
std::string bincode(const PolyCommitment& c) {
  Bincode b;
  b.point(c.T_1_j);
  b.point(c.T_2_j);
  return to_hex(b.out);
}
std::string bincode(const PolyChallengeMsg& c) {
  Bincode b;
  b.scalar(c.x);
  return to_hex(b.out);
}
std::string bincode(const ProofShare& s) {
  Bincode b;
  b.scalar(s.t_x);
  b.scalar(s.t_x_blinding);
  b.scalar(s.e_blinding);
  b.vec(s.l_vec);
  b.vec(s.r_vec);
  return to_hex(b.out);
}

// Everything one run of the protocol produced, with a hook to tamper with the shares.
struct Run {
  std::vector<std::string> messages;  // bincode, in protocol order
  MpcResult<AggregationResult> result = MpcError{MpcErrorKind::ConsumedState, {}, "not run"};
};

// A run up to the dealer holding every share (tampered with, if asked), before it takes them.
struct SharesInHand {
  std::vector<std::string> messages;
  std::optional<DealerAwaitingProofShares> dealer;
  std::vector<ProofShare> shares;
  std::vector<PartyAwaitingResult> parties;
};

SharesInHand reach_shares(const SessionParams& params, const std::vector<uint64_t>& values,
                          const std::vector<Scalar>& blindings, RandomSource& rng, bool allow_out_of_range,
                          const std::function<void(std::vector<ProofShare>&)>& tamper = {}) {
  SharesInHand run;
  std::vector<PartyAwaitingPosition> parties;
  for (size_t j = 0; j < params.positions; ++j) {
    auto p = bp::mpc::detail::PartyFactory::create(gens(), pc(), params, values[j], blindings[j], nullptr, &rng,
                                                   allow_out_of_range);
    REQUIRE(p.ok());
    parties.push_back(std::move(*p));
  }
  auto dealer = bp::mpc::detail::DealerFactory::create(gens(), pc(), params, nullptr, &rng);
  REQUIRE(dealer.ok());

  std::vector<PartyAwaitingBitChallenge> round1;
  std::vector<BitCommitment> bits;
  for (size_t j = 0; j < parties.size(); ++j) {
    auto r = std::move(parties[j]).assign_position(j);
    REQUIRE(r.ok());
    run.messages.push_back(bincode(r->second));
    bits.push_back(r->second);
    round1.push_back(std::move(r->first));
  }
  auto d1 = std::move(*dealer).receive_bit_commitments(bits);
  REQUIRE(d1.ok());
  run.messages.push_back(bincode(d1->second));

  std::vector<PartyAwaitingPolyChallenge> round2;
  std::vector<PolyCommitment> polys;
  for (auto& party : round1) {
    auto r = std::move(party).apply_challenge(d1->second);
    REQUIRE(r.ok());
    run.messages.push_back(bincode(r->second));
    polys.push_back(r->second);
    round2.push_back(std::move(r->first));
  }
  auto d2 = std::move(d1->first).receive_poly_commitments(polys);
  REQUIRE(d2.ok());
  run.messages.push_back(bincode(d2->second));

  for (auto& party : round2) {
    auto r = std::move(party).apply_challenge(d2->second);
    REQUIRE(r.ok());
    run.messages.push_back(bincode(r->second));
    run.shares.push_back(r->second);
    run.parties.push_back(std::move(r->first));
  }
  if (tamper) tamper(run.shares);
  run.dealer.emplace(std::move(d2->first));
  return run;
}

Run run_protocol(const SessionParams& params, const std::vector<uint64_t>& values, const std::vector<Scalar>& blindings,
                 RandomSource& rng, bool allow_out_of_range,
                 const std::function<void(std::vector<ProofShare>&)>& tamper = {}) {
  auto in_hand = reach_shares(params, values, blindings, rng, allow_out_of_range, tamper);
  Run run;
  run.messages = std::move(in_hand.messages);
  run.result = std::move(*in_hand.dealer).receive_shares(in_hand.shares);
  if (run.result.ok())
    for (const auto& party : in_hand.parties) CHECK(party.check_result(*run.result).ok());
  return run;
}

std::array<uint8_t, 32> seed_of(const std::string& h) {
  std::array<uint8_t, 32> seed;
  const auto b = hex_bytes(h);
  std::copy(b.begin(), b.end(), seed.begin());
  return seed;
}

}  // namespace

TEST_CASE("mpc.json: honest runs reproduce every message and the proof byte for byte") {
  const auto doc = bp::test::load_vectors("mpc.json");
  int runs = 0;
  for (const auto& tc : doc["runs"]) {
    CAPTURE(tc["id"].get<std::string>());
    const SessionParams params{tc["n"].get<size_t>(), tc["m"].get<size_t>(), tc["transcript_label"].get<std::string>()};
    bp::test::ChaCha20Rng rng(seed_of(tc["rng_seed_hex"]));
    std::vector<uint64_t> values;
    std::vector<Scalar> blindings;
    for (const auto& v : tc["values"]) values.push_back(std::stoull(v.get<std::string>()));
    for (size_t j = 0; j < params.positions; ++j) blindings.push_back(Scalar::random(rng));
    const Run run = run_protocol(params, values, blindings, rng, false);
    REQUIRE(run.result.ok());
    const auto& msgs = tc["messages"];
    REQUIRE(msgs.size() == run.messages.size() + 1);  // the last vector message is the proof
    for (size_t i = 0; i < run.messages.size(); ++i) {
      CAPTURE(msgs[i]["type"].get<std::string>());
      CHECK(run.messages[i] == msgs[i]["bincode"].get<std::string>());
    }
    CHECK(to_hex(run.result->proof.to_bytes()) == tc["proof"].get<std::string>());
    std::vector<std::string> commitments;
    for (const auto& c : run.result->commitments) commitments.push_back(to_hex(c.bytes));
    CHECK(commitments == tc["commitments"].get<std::vector<std::string>>());
    CHECK(run.result->padding_positions.empty());
    ++runs;
  }
  CHECK(runs == 2);
}

TEST_CASE("mpc.json: the corrupted cases blame the same parties as the reference") {
  const auto doc = bp::test::load_vectors("mpc.json");
  int cases = 0;
  for (const auto& tc : doc["corrupted_cases"]) {
    const std::string id = tc["id"];
    CAPTURE(id);
    const SessionParams params{tc["n"].get<size_t>(), tc["m"].get<size_t>(), tc["transcript_label"].get<std::string>()};
    bp::test::ChaCha20Rng rng(seed_of(tc["rng_seed_hex"]));
    std::vector<uint64_t> values;
    std::vector<Scalar> blindings;
    for (const auto& v : tc["values"]) values.push_back(std::stoull(v.get<std::string>()));
    for (size_t j = 0; j < params.positions; ++j) blindings.push_back(Scalar::random(rng));
    std::function<void(std::vector<ProofShare>&)> tamper;
    if (id.find("bad_share_tx") != std::string::npos) tamper = [](auto& shares) { shares[2].t_x += Scalar::one(); };
    if (id.find("bad_share_size") != std::string::npos) tamper = [](auto& shares) { shares[2].l_vec.pop_back(); };
    const Run run = run_protocol(params, values, blindings, rng, true, tamper);
    REQUIRE_FALSE(run.result.ok());
    CHECK(run.result.error().kind == MpcErrorKind::MalformedProofShares);
    CHECK(run.result.error().blamed == tc["bad_shares"].get<std::vector<size_t>>());
    ++cases;
  }
  CHECK(cases == 3);
}

TEST_CASE("random corruption: the blamed set is exactly the corrupted set") {
  SystemRandom rng;
  for (int trial = 0; trial < 12; ++trial) {
    const size_t m = 1 + randombytes_uniform(6);
    const SessionParams params{16, m, session_label("trial", 16, m, "blame")};
    std::vector<uint64_t> values(m);
    std::vector<Scalar> blindings(m);
    for (size_t j = 0; j < m; ++j) {
      values[j] = randombytes_uniform(1 << 16);
      blindings[j] = Scalar::random(rng);
    }
    std::set<size_t> corrupted;
    for (size_t j = 0; j < m; ++j)
      if (randombytes_uniform(2)) corrupted.insert(j);
    const Run run = run_protocol(params, values, blindings, rng, false, [&](std::vector<ProofShare>& shares) {
      for (size_t j : corrupted) {
        ProofShare& s = shares[j];
        switch (randombytes_uniform(5)) {
          case 0: s.t_x += Scalar::one(); break;
          case 1: s.t_x_blinding += Scalar::one(); break;
          case 2: s.e_blinding += Scalar::one(); break;
          case 3: s.l_vec[randombytes_uniform(16)] += Scalar::one(); break;
          default: s.r_vec[randombytes_uniform(16)] += Scalar::one(); break;
        }
      }
    });
    CAPTURE(m);
    if (corrupted.empty()) {
      CHECK(run.result.ok());
    } else {
      REQUIRE_FALSE(run.result.ok());
      CHECK(run.result.error().kind == MpcErrorKind::MalformedProofShares);
      CHECK(run.result.error().blamed == std::vector<size_t>(corrupted.begin(), corrupted.end()));
    }
  }
}

TEST_CASE("proofs of sessions that end together, checked in one batch, answer as their own checks") {
  // Each session is run twice from one seed: once through receive_shares (its own check),
  // once assembled and checked with the others in check_batch.
  struct Case {
    size_t n, m;
    std::set<size_t> corrupted;
  };
  const std::vector<Case> cases = {{16, 1, {}}, {32, 3, {}}, {16, 4, {2}}, {64, 2, {}}, {8, 5, {0, 4}}, {16, 2, {}}};
  for (int with_bad : {0, 1}) {
    CAPTURE(with_bad);
    std::vector<DealerCheckingProof> assembled;
    std::vector<Run> alone;
    std::vector<std::vector<PartyAwaitingResult>> parties;
    for (size_t k = 0; k < cases.size(); ++k) {
      const auto& c = cases[k];
      const SessionParams params{c.n, c.m, session_label("batch" + std::to_string(k), c.n, c.m, "check")};
      std::vector<uint64_t> values(c.m, 200);
      std::vector<Scalar> blindings(c.m, Scalar::one());
      const auto tamper = [&](std::vector<ProofShare>& shares) {
        if (with_bad)
          for (size_t j : c.corrupted) shares[j].l_vec[1] += Scalar::one();
      };
      std::array<uint8_t, 32> seed{};
      seed[0] = static_cast<uint8_t>(k);
      bp::test::ChaCha20Rng rng_alone(seed), rng_batch(seed);
      alone.push_back(run_protocol(params, values, blindings, rng_alone, false, tamper));
      auto in_hand = reach_shares(params, values, blindings, rng_batch, false, tamper);
      auto checking = std::move(*in_hand.dealer).assemble_shares(in_hand.shares);
      REQUIRE(checking.ok());
      assembled.push_back(std::move(*checking));
      parties.push_back(std::move(in_hand.parties));
    }
    const auto answers = DealerCheckingProof::check_batch(std::move(assembled));
    REQUIRE(answers.size() == cases.size());
    for (size_t k = 0; k < cases.size(); ++k) {
      CAPTURE(k);
      const bool bad = with_bad && !cases[k].corrupted.empty();
      REQUIRE(answers[k].ok() == !bad);
      REQUIRE(alone[k].result.ok() == !bad);
      if (bad) {
        CHECK(answers[k].error().kind == MpcErrorKind::MalformedProofShares);
        CHECK(answers[k].error().blamed == alone[k].result.error().blamed);
        CHECK(answers[k].error().blamed == std::vector<size_t>(cases[k].corrupted.begin(), cases[k].corrupted.end()));
      } else {
        CHECK(answers[k]->proof.to_bytes() == alone[k].result->proof.to_bytes());
        for (const auto& party : parties[k]) CHECK(party.check_result(*answers[k]).ok());
      }
    }
  }
}

TEST_CASE("a batch check answers a moved-from dealer with ConsumedState and checks the rest") {
  SystemRandom rng;
  std::vector<DealerCheckingProof> dealers;
  for (size_t k = 0; k < 3; ++k) {
    const SessionParams params{8, 2, session_label("moved" + std::to_string(k), 8, 2, "check")};
    auto in_hand = reach_shares(params, {1, 2}, {Scalar::one(), Scalar::one()}, rng, false);
    auto checking = std::move(*in_hand.dealer).assemble_shares(in_hand.shares);
    REQUIRE(checking.ok());
    dealers.push_back(std::move(*checking));
  }
  DealerCheckingProof taken = std::move(dealers[1]);
  const auto answers = DealerCheckingProof::check_batch(std::move(dealers));
  REQUIRE(answers.size() == 3);
  CHECK(answers[0].ok());
  REQUIRE_FALSE(answers[1].ok());
  CHECK(answers[1].error().kind == MpcErrorKind::ConsumedState);
  CHECK(answers[2].ok());
  CHECK(std::move(taken).check().ok());
}

TEST_CASE("any number of parties: the dealer pads to a power of two") {
  SystemRandom rng;
  for (size_t m : {1, 3, 5, 7}) {
    CAPTURE(m);
    const SessionParams params{32, m, session_label("pad", 32, m, "padding")};
    std::vector<uint64_t> values(m, 123456);
    std::vector<Scalar> blindings(m);
    for (auto& b : blindings) b = Scalar::random(rng);
    const Run run = run_protocol(params, values, blindings, rng, false);
    REQUIRE(run.result.ok());
    CHECK(run.result->commitments.size() == params.padded_m());
    std::vector<size_t> expected;
    for (size_t j = m; j < params.padded_m(); ++j) expected.push_back(j);
    CHECK(run.result->padding_positions == expected);
    for (size_t j : expected) CHECK(run.result->commitments[j].is_identity_encoding());
    Transcript t(run.result->label);
    CHECK(run.result->proof.verify_multiple(gens(), pc(), t, run.result->commitments, 32).ok());
  }
}

TEST_CASE("a party checks its commitment's placement alone, and the shared proof with check_result") {
  SystemRandom rng;
  const SessionParams params{16, 2, session_label("placement", 16, 2, "placement")};
  std::vector<Scalar> blindings{Scalar::random(rng), Scalar::random(rng)};
  auto in_hand = reach_shares(params, {3, 4}, blindings, rng, false);
  auto result = std::move(*in_hand.dealer).receive_shares(in_hand.shares);
  REQUIRE(result.ok());
  for (const auto& party : in_hand.parties) {
    CHECK(party.check_placement(*result).ok());
    CHECK(party.check_result(*result).ok());
  }
  // Another session's proof of the same shape: every commitment in place, but the proof
  // is not of them. Only check_result, which a seat runs once, sees it.
  const Run other = run_protocol(params, {3, 4}, {Scalar::random(rng), Scalar::random(rng)}, rng, false);
  REQUIRE(other.result.ok());
  auto foreign = *result;
  foreign.proof = other.result->proof;
  CHECK(in_hand.parties[0].check_placement(foreign).ok());
  auto refused = in_hand.parties[0].check_result(foreign);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == MpcErrorKind::MaliciousDealer);
  // A commitment moved: the party at that position sees it without a proof check.
  auto moved = *result;
  std::swap(moved.commitments[0], moved.commitments[1]);
  for (const auto& party : in_hand.parties) {
    auto placed = party.check_placement(moved);
    REQUIRE_FALSE(placed.ok());
    CHECK(placed.error().kind == MpcErrorKind::MaliciousDealer);
    CHECK(party.check_result(moved).error().kind == MpcErrorKind::MaliciousDealer);
  }
}

TEST_CASE("a dealer rebuilt from its padding seed and the same messages decides the same challenges and proof") {
  // Three real parties: one padding party, whose randomness is the seed's.
  SystemRandom rng;
  const SessionParams params{16, 3, session_label("rebuilt", 16, 3, "takeover")};
  std::array<uint8_t, kPaddingSeedBytes> seed{};
  randombytes_buf(seed.data(), seed.size());
  std::vector<PartyAwaitingBitChallenge> round1;
  std::vector<BitCommitment> bits;
  for (size_t j = 0; j < params.positions; ++j) {
    auto p = PartyAwaitingPosition::create(gens(), pc(), params, 1000 + j, Scalar::random(rng));
    REQUIRE(p.ok());
    auto r = std::move(*p).assign_position(j);
    REQUIRE(r.ok());
    bits.push_back(r->second);
    round1.push_back(std::move(r->first));
  }
  // Two dealers fed the same seed and the same messages, round by round.
  auto a0 = DealerAwaitingBitCommitments::create(gens(), pc(), params, seed);
  auto b0 = DealerAwaitingBitCommitments::create(gens(), pc(), params, seed);
  REQUIRE((a0.ok() && b0.ok()));
  auto a1 = std::move(*a0).receive_bit_commitments(bits);
  auto b1 = std::move(*b0).receive_bit_commitments(bits);
  REQUIRE((a1.ok() && b1.ok()));
  CHECK(bincode(a1->second) == bincode(b1->second));
  CHECK(a1->second.bit_commitments == b1->second.bit_commitments);  // the padding party's too
  std::vector<PolyCommitment> polys;
  std::vector<PartyAwaitingPolyChallenge> round2;
  for (auto& party : round1) {
    auto r = std::move(party).apply_challenge(a1->second);
    REQUIRE(r.ok());
    polys.push_back(r->second);
    round2.push_back(std::move(r->first));
  }
  auto a2 = std::move(a1->first).receive_poly_commitments(polys);
  auto b2 = std::move(b1->first).receive_poly_commitments(polys);
  REQUIRE((a2.ok() && b2.ok()));
  CHECK(bincode(a2->second) == bincode(b2->second));
  std::vector<ProofShare> shares;
  for (auto& party : round2) {
    auto r = std::move(party).apply_challenge(a2->second);
    REQUIRE(r.ok());
    shares.push_back(r->second);
  }
  auto a3 = std::move(a2->first).receive_shares(shares);
  auto b3 = std::move(b2->first).receive_shares(shares);
  REQUIRE((a3.ok() && b3.ok()));
  CHECK(a3->proof.to_bytes() == b3->proof.to_bytes());
  // Another seed: other padding commitments, so another challenge.
  std::array<uint8_t, kPaddingSeedBytes> other = seed;
  other[0] ^= 1;
  auto c0 = DealerAwaitingBitCommitments::create(gens(), pc(), params, other);
  auto c1 = std::move(*c0).receive_bit_commitments(bits);
  REQUIRE(c1.ok());
  CHECK_FALSE(bincode(c1->second) == bincode(a1->second));
}

TEST_CASE("a party refuses a dealer that steers, zeroes or changes a challenge") {
  SystemRandom rng;
  const SessionParams params{8, 2, session_label("steer", 8, 2, "x")};
  auto make = [&](size_t j) {
    auto p = PartyAwaitingPosition::create(gens(), pc(), params, 5 + j, Scalar::random(rng));
    REQUIRE(p.ok());
    return std::move(*p).assign_position(j);
  };
  auto a = make(0), b = make(1);
  auto dealer = DealerAwaitingBitCommitments::create(gens(), pc(), params);
  auto d1 = std::move(*dealer).receive_bit_commitments({a->second, b->second});
  REQUIRE(d1.ok());
  const BitChallengeMsg honest = d1->second;

  auto refuse = [&](BitChallengeMsg c, const char* why) {
    CAPTURE(why);
    auto fresh = make(0);
    c.bit_commitments[0] = fresh->second;  // the fresh party's own commitment
    auto r = std::move(fresh->first).apply_challenge(c);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == MpcErrorKind::MaliciousDealer);
  };
  BitChallengeMsg steered = honest;
  steered.y += Scalar::one();
  refuse(steered, "y not from the transcript");
  BitChallengeMsg zero = honest;
  zero.z = Scalar::zero();
  refuse(zero, "zero z");
  BitChallengeMsg short_list = honest;
  short_list.bit_commitments.pop_back();
  refuse(short_list, "missing commitment");

  // Replacing a party's own commitment is refused too.
  BitChallengeMsg replaced = honest;
  replaced.bit_commitments[1] = replaced.bit_commitments[0];
  auto rb = std::move(b->first).apply_challenge(replaced);
  REQUIRE_FALSE(rb.ok());
  CHECK(rb.error().kind == MpcErrorKind::MaliciousDealer);

  // The honest challenge works; repeating it returns the identical reply; a different one is refused.
  auto ra = std::move(a->first).apply_challenge(honest);
  REQUIRE(ra.ok());
  auto again = ra->first.replay(honest);
  REQUIRE(again.ok());
  CHECK(*again == ra->second);
  BitChallengeMsg other = honest;
  other.z += Scalar::one();
  CHECK(ra->first.replay(other).error().kind == MpcErrorKind::MaliciousDealer);
}

TEST_CASE("the dealer validates counts and points and names the culprits") {
  SystemRandom rng;
  const SessionParams params{8, 3, session_label("validate", 8, 3, "x")};
  std::vector<BitCommitment> bits;
  for (size_t j = 0; j < 3; ++j) {
    auto p = PartyAwaitingPosition::create(gens(), pc(), params, j, Scalar::random(rng));
    bits.push_back(std::move(*p).assign_position(j)->second);
  }
  {
    auto dealer = DealerAwaitingBitCommitments::create(gens(), pc(), params);
    auto r = std::move(*dealer).receive_bit_commitments({bits[0], bits[1]});
    CHECK(r.error().kind == MpcErrorKind::WrongNumBitCommitments);
  }
  {
    auto bad = bits;
    bad[1].A_j = CompressedRistretto{};  // identity
    bad[2].S_j.bytes[31] |= 0x80;        // non-canonical
    auto dealer = DealerAwaitingBitCommitments::create(gens(), pc(), params);
    auto r = std::move(*dealer).receive_bit_commitments(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == MpcErrorKind::MalformedBitCommitments);
    CHECK(r.error().blamed == std::vector<size_t>{1, 2});
    CHECK(describe(r.error()).find("blamed") == std::string::npos);  // said once, by whoever prints the field
    CHECK(describe_with_blame(r.error()).find("blamed=[1,2]") != std::string::npos);
  }
  {
    // V_j may be any valid point, the identity included; one that does not decode is blamed.
    auto bad = bits;
    bad[0].V_j = CompressedRistretto{};
    bad[2].V_j.bytes[0] |= 1;  // a negative field element: no valid encoding
    auto dealer = DealerAwaitingBitCommitments::create(gens(), pc(), params);
    auto r = std::move(*dealer).receive_bit_commitments(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == MpcErrorKind::MalformedBitCommitments);
    CHECK(r.error().blamed == std::vector<size_t>{2});
  }
  {
    // T_1 and T_2: neither may be the identity or fail to decode.
    std::vector<PartyAwaitingBitChallenge> round1;
    std::vector<BitCommitment> fresh;
    for (size_t j = 0; j < 3; ++j) {
      auto p = PartyAwaitingPosition::create(gens(), pc(), params, j, Scalar::random(rng));
      auto assigned = std::move(*p).assign_position(j);
      fresh.push_back(assigned->second);
      round1.push_back(std::move(assigned->first));
    }
    auto dealer = DealerAwaitingBitCommitments::create(gens(), pc(), params);
    auto d1 = std::move(*dealer).receive_bit_commitments(fresh);
    REQUIRE(d1.ok());
    std::vector<PolyCommitment> polys;
    for (auto& party : round1) polys.push_back(std::move(party).apply_challenge(d1->second)->second);
    polys[0].T_2_j = CompressedRistretto{};  // identity
    polys[1].T_1_j.bytes[31] |= 0x80;        // non-canonical
    auto d2 = std::move(d1->first).receive_poly_commitments(polys);
    REQUIRE_FALSE(d2.ok());
    CHECK(d2.error().kind == MpcErrorKind::MalformedPolyCommitments);
    CHECK(d2.error().blamed == std::vector<size_t>{0, 1});
  }
  {
    const SessionParams too_many{8, 65, "x"};
    CHECK(DealerAwaitingBitCommitments::create(gens(), pc(), too_many).error().kind == MpcErrorKind::InvalidParameters);
    CHECK(PartyAwaitingPosition::create(gens(), pc(), params, 256, Scalar::one()).error().kind ==
          MpcErrorKind::ValueOutOfRange);
  }
}

TEST_CASE("a moved-from state refuses every call (the run-time backstop)") {
  SystemRandom rng;
  const SessionParams params{8, 1, "consumed"};
  auto p = PartyAwaitingPosition::create(gens(), pc(), params, 1, Scalar::random(rng));
  REQUIRE(p.ok());
  PartyAwaitingPosition party = std::move(*p);
  auto first = std::move(party).assign_position(0);
  REQUIRE(first.ok());
  // NOLINTNEXTLINE(bugprone-use-after-move): deliberately reusing a consumed state
  auto second = std::move(party).assign_position(0);
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().kind == MpcErrorKind::ConsumedState);

  auto dealer = DealerAwaitingBitCommitments::create(gens(), pc(), params);
  DealerAwaitingBitCommitments d = std::move(*dealer);
  auto ok = std::move(d).receive_bit_commitments({first->second});
  REQUIRE(ok.ok());
  // NOLINTNEXTLINE(bugprone-use-after-move): deliberately reusing a consumed state
  CHECK(std::move(d).receive_bit_commitments({first->second}).error().kind == MpcErrorKind::ConsumedState);
}

TEST_CASE("session labels carry the version, session id, n, m and the user's label") {
  CHECK(session_label("ab12", 64, 3, "payroll") == "bp-agg/v1 session=ab12 n=64 m=4 parties=3 label=payroll");
  CHECK(SessionParams{64, 33, ""}.padded_m() == 64);
  CHECK(SessionParams{64, 64, ""}.valid());
  CHECK_FALSE(SessionParams{64, 0, ""}.valid());
  CHECK_FALSE(SessionParams{12, 4, ""}.valid());
}

TEST_CASE("a party reads a session's transcript label only when its terms rebuild it exactly") {
  const std::string id(32, 'c');
  const std::vector<ValueBounds> bounds = {{100, 1000}, {7, std::nullopt}, {0, UINT64_MAX}};
  const size_t positions = bounded_positions(bounds);  // 5
  for (const std::string& user :
       std::vector<std::string>{"", "payroll", "x bounds=1..2", "label= bounded=3 parties=9"}) {
    CAPTURE(user);
    const auto plain = read_session_transcript_label(session_label(id, 16, 3, user), id, 16, 3);
    REQUIRE(plain.has_value());
    CHECK(plain->user_label == user);
    CHECK(plain->bounds.empty());
    const auto label = session_transcript_label(id, 64, positions, user, bounds);
    const auto bounded = read_session_transcript_label(label, id, 64, positions);
    REQUIRE(bounded.has_value());
    CHECK(bounded->user_label == user);
    CHECK(bounded->bounds == bounds);
    // Another session, bit size or count of positions reads as nothing.
    CHECK_FALSE(read_session_transcript_label(label, std::string(32, 'd'), 64, positions));
    CHECK_FALSE(read_session_transcript_label(label, id, 32, positions));
    CHECK_FALSE(read_session_transcript_label(label, id, 64, positions + 1));
  }
  const auto label = session_transcript_label(id, 64, positions, "app", bounds);
  // Bounds that are not bounded_label's own text, or do not take the positions, or a bounds
  // list that n does not cover.
  for (const std::string& bad :
       {label + "0", label + ",1..2", std::string(label).replace(label.find("100.."), 5, "0100.."),
        session_label(id, 64, positions, "", 3) + "app bounds=100..1000,7..,0..18446744073709551616",
        session_label(id, 64, positions, "", 2) + "app bounds=100..1000,7..,0..18446744073709551615",
        session_label(id, 8, positions, "", 3) + "app bounds=100..1000,7..,0..18446744073709551615", std::string()}) {
    CAPTURE(bad);
    CHECK_FALSE(read_session_transcript_label(bad, id, bad.find(" n=8 ") != std::string::npos ? 8 : 64, positions));
  }
}
