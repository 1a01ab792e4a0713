// Sessions whose parties hold several positions (1.4): a party of k values takes k
// positions, answers each round with one message of k items, and is blamed as a whole; a
// bounded value takes one position (a minimum) or two (both ends), over V - min·B and
// max·B - V, and the dealer refuses a pair that does not add up to (max - min)·B.
#include <doctest/doctest.h>

#include "bp/wire/json.hpp"
#include "session_harness.hpp"

using namespace bp;
using namespace bp::server;
using namespace bp::server::testing;

namespace {

// A real party of several values at the positions its Joined names, as the client runs one.
struct MultiParty {
  MultiParty(Harness& h, const std::shared_ptr<FakeLink>& link, std::vector<uint64_t> values,
             const std::vector<ValueBounds>& bounds = {}) {
    const auto* joined = link->last<wire::JoinedMsg>();
    REQUIRE(joined);
    REQUIRE(joined->bounds == bounds);
    SystemRandom rng;
    std::vector<Scalar> blindings;
    for (size_t i = 0; i < values.size(); ++i) blindings.push_back(Scalar::random(rng));
    BoundedWitness w{values, blindings};
    if (!bounds.empty()) {
      auto bounded = bounded_witness(values, blindings, bounds, h.params.bits);
      REQUIRE(bounded);
      w = std::move(*bounded);
    }
    for (size_t k = 0; k < joined->positions; ++k) {
      auto start = mpc::PartyAwaitingPosition::create(h.bp_gens, h.pc_gens, h.params, w.values[k], w.blindings[k]);
      REQUIRE(start);
      auto seated = std::move(*start).assign_position(joined->position + k);
      REQUIRE(seated);
      bits.emplace_back(std::move(seated->first));
      commitments.items.push_back(seated->second);
    }
  }
  wire::PolyCommitments answer(const mpc::BitChallengeMsg& c) { return advance<wire::PolyCommitments>(bits, polys, c); }
  wire::ProofShares answer(const mpc::PolyChallengeMsg& c) { return advance<wire::ProofShares>(polys, results, c); }
  // Each position's state takes the challenge; the replies go in one message, in order.
  template <class Items, class From, class To, class Challenge>
  static Items advance(std::vector<From>& from, std::vector<To>& to, const Challenge& c) {
    Items out;
    for (auto& state : from) {
      auto next = std::move(state).apply_challenge(c);
      REQUIRE(next);
      to.emplace_back(std::move(next->first));
      out.items.push_back(next->second);
    }
    return out;
  }
  std::vector<mpc::PartyAwaitingBitChallenge> bits;
  std::vector<mpc::PartyAwaitingPolyChallenge> polys;
  std::vector<mpc::PartyAwaitingResult> results;
  wire::BitCommitments commitments;
};

}  // namespace

TEST_CASE("a party of three values takes three positions and answers each round in one message") {
  Harness h(Harness::Shape{{3, 1}, {}});
  auto a = h.join({}, 3);
  auto b = h.join();  // a party before 1.4 fits the seat of one value
  REQUIRE((a->position == 0u && b->position == 1u));
  CHECK(a->positions == 3);
  CHECK(a->last<wire::JoinedMsg>()->session_positions == 4);
  CHECK(b->last<wire::JoinedMsg>()->position == 3);
  MultiParty pa(h, a, {5, 7, 9}), pb(h, b, {200});
  h.deliver(a, pa.commitments);
  h.deliver(b, pb.commitments.items[0]);  // a 1.3 party's single message
  const auto* bit_challenge = b->last<mpc::BitChallengeMsg>();
  REQUIRE(bit_challenge);
  CHECK(bit_challenge->bit_commitments.size() == 4);
  h.deliver(a, pa.answer(*bit_challenge));
  h.deliver(b, pb.answer(*bit_challenge));
  const auto* poly_challenge = a->last<mpc::PolyChallengeMsg>();
  REQUIRE(poly_challenge);
  h.deliver(a, pa.answer(*poly_challenge));
  h.deliver(b, pb.answer(*poly_challenge).items[0]);
  REQUIRE(h.recorded().size() == 1);
  REQUIRE(h.recorded()[0].ok);
  const auto* result = a->last<wire::ResultMsg>();
  REQUIRE(result);
  for (const auto& r : pa.results) CHECK(r.check_result(result->result));
  CHECK(result->result.commitments.size() == 4);
  CHECK(wire::attestation_valid(*result));
}

TEST_CASE("a party is blamed as a whole: every position it holds, for too few items or a bad one") {
  SUBCASE("too few items") {
    Harness h(Harness::Shape{{1, 2}, {}});
    auto a = h.join({}, 1), b = h.join({}, 2);
    MultiParty pb(h, b, {1, 2});
    pb.commitments.items.pop_back();
    h.deliver(b, pb.commitments);
    REQUIRE(h.recorded().size() == 1);
    CHECK(h.recorded()[0].blamed == std::vector<size_t>{1, 2});
    CHECK(h.recorded()[0].reason.find("sent 1 messages for its 2 positions") != std::string::npos);
    CHECK(a->closed);
  }
  SUBCASE("one bad item among several") {
    Harness h(Harness::Shape{{2, 1}, {}});
    auto a = h.join({}, 2), b = h.join({}, 1);
    MultiParty pa(h, a, {1, 2}), pb(h, b, {3});
    pa.commitments.items[1].A_j = CompressedRistretto{};  // the identity: never an honest A
    h.deliver(a, pa.commitments);
    h.deliver(b, pb.commitments);
    REQUIRE(h.recorded().size() == 1);
    CHECK(h.recorded()[0].blamed == std::vector<size_t>{0, 1});
  }
}

TEST_CASE("a seat of several values refuses a party that brings another number, or an old party") {
  Harness h(Harness::Shape{{2}, {}});
  auto old_party = h.join();
  CHECK(old_party->last<wire::AbortMsg>()->reason.find("1.4") != std::string::npos);
  auto wrong = h.join({}, 3);
  CHECK(wrong->last<wire::AbortMsg>()->reason.find("holds 2 values; the party brings 3") != std::string::npos);
  CHECK(h.recorded().empty());  // nothing changed: the seat is still free
  auto right = h.join({}, 2);
  CHECK(right->last<wire::JoinedMsg>());
}

TEST_CASE("a bounded session: two positions per value with both ends, checked by the dealer, in its label") {
  const std::vector<ValueBounds> bounds{{10, 200}, {3, std::nullopt}};
  Harness h(Harness::Shape{{1, 1}, bounds});
  CHECK(h.params.positions == 3);
  CHECK(h.params.label.find(" bounded=2 label=unit bounds=10..200,3..") != std::string::npos);
  auto a = h.join({}, 1), b = h.join({}, 1);
  CHECK(a->positions == 2);
  CHECK(b->last<wire::JoinedMsg>()->position == 2);
  CHECK(h.record.last().bounds == bounds);
  SUBCASE("honest parties end in a result a verifier derives from V and the bounds") {
    MultiParty pa(h, a, {150}, {bounds[0]}), pb(h, b, {3}, {bounds[1]});
    h.deliver(a, pa.commitments);
    h.deliver(b, pb.commitments.items[0]);
    const auto* c1 = a->last<mpc::BitChallengeMsg>();
    REQUIRE(c1);
    h.deliver(a, pa.answer(*c1));
    h.deliver(b, pb.answer(*c1).items[0]);
    const auto* c2 = a->last<mpc::PolyChallengeMsg>();
    REQUIRE(c2);
    h.deliver(a, pa.answer(*c2));
    h.deliver(b, pb.answer(*c2).items[0]);
    const auto* result = b->last<wire::ResultMsg>();
    REQUIRE(result);
    CHECK(result->bounds == bounds);
    const auto statement = wire::bounded_statement(result->result, result->bounds);
    REQUIRE(statement);
    // What a third party derives from the values' commitments and the bounds is exactly what
    // the proof is over, under the label the bounds end.
    auto derived = bounded_commitments(h.pc_gens, statement->commitments, bounds);
    REQUIRE(derived);
    CHECK(*derived == result->result.commitments);
    CHECK(bounded_label(statement->label, bounds) == result->result.label);
    Transcript t(result->result.label);
    CHECK(result->result.proof.verify_multiple(h.bp_gens, h.pc_gens, t, *derived, 8));
  }
  SUBCASE("a pair that does not add up to (max - min)·B is blamed on its party") {
    MultiParty pa(h, a, {150}, {bounds[0]}), pb(h, b, {3}, {bounds[1]});
    std::swap(pa.commitments.items[0], pb.commitments.items[0]);  // each valid, the pair not
    h.deliver(a, pa.commitments);
    h.deliver(b, pb.commitments.items[0]);
    REQUIRE(h.recorded().size() == 1);
    CHECK(h.recorded()[0].blamed == std::vector<size_t>{0, 1});
    CHECK(h.recorded()[0].reason.find("bounded value's two positions") != std::string::npos);
  }
}

TEST_CASE("a session of several values per party is rebuilt from its checkpoint with its shape") {
  std::optional<wire::DealerCheckpoint> saved;
  {
    Harness h(Harness::Shape{{2, 1}, {{0, 100}, {0, 100}, {5, std::nullopt}}});
    auto a = h.join({}, 2), b = h.join({}, 1);
    saved = h.record.last();
  }
  REQUIRE(saved);
  CHECK(saved->values_per_party == std::vector<uint32_t>{2, 1});
  CHECK(saved->seats.size() == 2);
  auto bytes = wire::encode_checkpoint(*saved);
  CHECK(wire::decode_checkpoint(bytes));
  const auto terms = terms_of(kSessionId, *saved);
  REQUIRE(terms);
  CHECK(terms->params.positions == 5);
  CHECK(terms->seat_shapes()[1].first_position == 4);
  // A checkpoint whose bounds were changed no longer names its session's label.
  auto changed = *saved;
  changed.bounds[0].max = 101;
  CHECK_FALSE(terms_of(kSessionId, changed));
}

TEST_CASE("the operator's terms: bits must cover the bounds, and positions stay under the cap") {
  CHECK(positions_of(8, 2, {}, {{0, 255}, {0, 255}}, 8).value() == 4);
  CHECK(positions_of(8, 1, {}, {{0, 256}}, 8).error().find("least of 8, 16, 32, 64 that does is 16") !=
        std::string::npos);
  CHECK(positions_of(64, 2, {200, 57}, {}, 256).error().find("at most 256") != std::string::npos);
  CHECK(positions_of(64, 3, {1, 1, 1}, {{5, 1}, {0, 1}, {0, 1}}, 64).error().find("min at most its max") !=
        std::string::npos);
}
