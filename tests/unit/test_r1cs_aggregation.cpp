// Multiparty R1CS (bp/r1cs_aggregation.hpp): parties that each prove their own item of a
// gadget list, a dealer that adds their messages up, and one proof that verify_gadget_list
// accepts; the same messages give the same bytes; a party whose share does not fit its own
// commitments is named; a party refuses a false statement and a round that misquotes it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "bp/r1cs_aggregation.hpp"
#include "bp/random.hpp"

using namespace bp;

namespace {

struct Rounds {
  std::vector<R1CSFirstPhaseShare> first;
  std::vector<R1CSSecondPhaseShare> second;
  std::vector<R1CSPolyShare> poly;
  std::vector<R1CSProofShare> shares;
};

GadgetList parse(const std::string& text) {
  auto list = GadgetList::parse(text);
  REQUIRE(list);
  return *list;
}

// Every party's four messages, each party fed the others' as the dealer would broadcast them.
Rounds run_parties(const GadgetList& list, const std::string& label, const std::vector<std::vector<uint64_t>>& values) {
  SystemRandom rng;
  std::vector<R1CSPartySlice> parties;
  Rounds out;
  for (size_t k = 0; k < values.size(); ++k) {
    std::vector<Scalar> blindings;
    for (size_t j = 0; j < values[k].size(); ++j) blindings.push_back(Scalar::random(rng));
    auto party = R1CSPartySlice::create(list, k, label, values[k], blindings);
    REQUIRE(party);
    out.first.push_back(party->first_phase());
    parties.push_back(std::move(*party));
  }
  for (auto& p : parties) {
    auto m = p.second_phase(out.first);
    REQUIRE(m);
    out.second.push_back(*m);
  }
  for (auto& p : parties) {
    auto m = p.poly(out.second);
    REQUIRE(m);
    out.poly.push_back(*m);
  }
  for (auto& p : parties) {
    auto m = p.share(out.poly);
    REQUIRE(m);
    out.shares.push_back(*m);
  }
  return out;
}

Result<R1CSAggregate, R1CSBlame> aggregate(const GadgetList& list, const std::string& label, const Rounds& r) {
  return aggregate_r1cs(list, label, r.first, r.second, r.poly, r.shares);
}

}  // namespace

TEST_CASE("parties proving their own items give one proof of the whole list") {
  struct Case {
    std::string list;
    std::vector<std::vector<uint64_t>> values;
  };
  const std::vector<Case> cases = {
      {"range:32;range:8", {{4000000000}, {255}}},                             // first phase only: a version-0 proof
      {"shuffle:3;shuffle:2", {{5, 6, 7, 7, 5, 6}, {1, 2, 2, 1}}},             // second phase only
      {"range:16;shuffle:3;sum:2", {{65535}, {9, 8, 7, 7, 9, 8}, {3, 4, 7}}},  // both, and a third party
      {"member:1|5|10;geq:8", {{5}, {200, 199}}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.list);
    const GadgetList list = parse(c.list);
    const std::string label = "multiparty test";
    const Rounds rounds = run_parties(list, label, c.values);
    auto result = aggregate(list, label, rounds);
    REQUIRE(result);
    CHECK(verify_gadget_list(list, label, result->commitments, result->proof));
    CHECK_FALSE(verify_gadget_list(list, "another label", result->commitments, result->proof));
    // The dealer's part is deterministic: a dealer rebuilt from the same messages gives the same bytes.
    auto again = aggregate(list, label, rounds);
    REQUIRE(again);
    CHECK(again->proof.to_bytes() == result->proof.to_bytes());
    // And the proof decodes from its bytes and still verifies.
    auto decoded = R1CSProof::from_bytes(result->proof.to_bytes());
    REQUIRE(decoded);
    CHECK(verify_gadget_list(list, label, result->commitments, *decoded));
  }
}

TEST_CASE("a party whose share does not fit its own commitments is named") {
  const GadgetList list = parse("range:16;shuffle:2;range:8");
  const std::string label = "blame";
  const Rounds honest = run_parties(list, label, {{1000}, {3, 4, 4, 3}, {17}});
  for (size_t culprit = 0; culprit < 3; ++culprit) {
    CAPTURE(culprit);
    Rounds r = honest;
    r.shares[culprit].l[0] += Scalar::one();
    auto result = aggregate(list, label, r);
    REQUIRE_FALSE(result);
    CHECK(result.error().error.kind == R1CSErrorKind::VerificationError);
    CHECK(result.error().blamed == std::vector<size_t>{culprit});

    r = honest;
    r.shares[culprit].t_x_blinding += Scalar::one();
    result = aggregate(list, label, r);
    REQUIRE_FALSE(result);
    CHECK(result.error().blamed == std::vector<size_t>{culprit});
  }
  Rounds r = honest;
  r.shares[1].r.pop_back();
  auto result = aggregate(list, label, r);
  REQUIRE_FALSE(result);
  CHECK(result.error().error.kind == R1CSErrorKind::FormatError);
  CHECK(result.error().blamed == std::vector<size_t>{1});
  r = honest;
  r.first[2].V.push_back(r.first[2].V[0]);
  result = aggregate(list, label, r);
  REQUIRE_FALSE(result);
  CHECK(result.error().blamed == std::vector<size_t>{2});
}

TEST_CASE("a party refuses a false statement, and a round that misquotes its own message") {
  const GadgetList list = parse("range:8;range:8");
  SystemRandom rng;
  const std::vector<Scalar> one{Scalar::random(rng)};
  auto outside = R1CSPartySlice::create(list, 0, "x", std::vector<uint64_t>{256}, one);
  REQUIRE_FALSE(outside);
  CHECK(outside.error().kind == R1CSErrorKind::Unsatisfied);
  CHECK_FALSE(R1CSPartySlice::create(list, 2, "x", std::vector<uint64_t>{1}, one));     // no such item
  CHECK_FALSE(R1CSPartySlice::create(list, 0, "x", std::vector<uint64_t>{1, 2}, one));  // wrong count

  auto a = R1CSPartySlice::create(list, 0, "x", std::vector<uint64_t>{7}, one);
  auto b = R1CSPartySlice::create(list, 1, "x", std::vector<uint64_t>{9}, one);
  REQUIRE(a);
  REQUIRE(b);
  std::vector<R1CSFirstPhaseShare> first{a->first_phase(), b->first_phase()};
  std::vector<R1CSFirstPhaseShare> swapped{b->first_phase(), a->first_phase()};
  CHECK_FALSE(a->second_phase(swapped));  // the dealer put another message in a's place
  REQUIRE(a->second_phase(first));
  CHECK_FALSE(a->second_phase(first));  // each round is answered once
}
