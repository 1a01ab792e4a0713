// The constraint-system sessions' type-states (bp/mpc/r1cs.hpp): seats proving their own
// gadgets through a dealer that only forwards and sums; a party that pins its gadget and
// refuses another seat the same way whatever its values; a misquoted round; blame by seat.
#include <doctest/doctest.h>

#include <vector>

#include "bp/mpc/limits.hpp"
#include "bp/mpc/r1cs.hpp"
#include "bp/random.hpp"

using namespace bp;
using namespace bp::mpc;

namespace {

GadgetItem gadget(const char* text) { return GadgetList::parse(text)->items()[0]; }

std::vector<Scalar> blindings(size_t n) {
  SystemRandom rng;
  std::vector<Scalar> out;
  for (size_t j = 0; j < n; ++j) out.push_back(Scalar::random(rng));
  return out;
}

struct Session {
  GadgetList list;
  std::string label = "bp-r1cs test session";
  std::vector<std::vector<uint64_t>> values;
};

// A session up to its last round: the dealer awaiting the shares, the shares, the parties.
struct AtShares {
  R1CSDealerAwaitingShares dealer;
  std::vector<R1CSProofShare> shares;
  std::vector<R1CSPartyAwaitingResult> parties;
};
AtShares to_shares(const Session& s) {
  std::vector<R1CSPartyAwaitingFirstPhases> seated;
  std::vector<R1CSFirstPhaseShare> first;
  for (size_t k = 0; k < s.values.size(); ++k) {
    auto party = R1CSPartyAwaitingSeat::create(s.list.items()[k], s.values[k], blindings(s.values[k].size()));
    REQUIRE(party);
    auto seat = std::move(*party).take_seat(s.list, k, s.label);
    REQUIRE(seat);
    seated.push_back(std::move(seat->first));
    first.push_back(std::move(seat->second));
  }
  auto dealer = R1CSDealerAwaitingFirstPhases::create(s.list, s.label);
  REQUIRE(dealer);
  auto d1 = std::move(*dealer).receive(first);
  REQUIRE(d1);
  std::vector<R1CSPartyAwaitingSecondPhases> p2;
  std::vector<R1CSSecondPhaseShare> second;
  for (auto& p : seated) {
    auto next = std::move(p).apply(first);
    REQUIRE(next);
    p2.push_back(std::move(next->first));
    second.push_back(next->second);
  }
  auto d2 = std::move(*d1).receive(second);
  REQUIRE(d2);
  std::vector<R1CSPartyAwaitingPolys> p3;
  std::vector<R1CSPolyShare> poly;
  for (auto& p : p2) {
    auto next = std::move(p).apply(second);
    REQUIRE(next);
    p3.push_back(std::move(next->first));
    poly.push_back(next->second);
  }
  auto d3 = std::move(*d2).receive(poly);
  REQUIRE(d3);
  std::vector<R1CSPartyAwaitingResult> done;
  std::vector<R1CSProofShare> shares;
  for (auto& p : p3) {
    auto next = std::move(p).apply(poly);
    REQUIRE(next);
    done.push_back(std::move(next->first));
    shares.push_back(next->second);
  }
  return AtShares{std::move(*d3), std::move(shares), std::move(done)};
}

// The whole session; `tamper` may change the shares before the dealer sees them; `kept`
// receives the parties' last states.
MpcResult<R1CSAggregate> run(const Session& s, void (*tamper)(std::vector<R1CSProofShare>&) = nullptr,
                             std::vector<R1CSPartyAwaitingResult>* kept = nullptr) {
  AtShares at = to_shares(s);
  if (tamper) tamper(at.shares);
  auto result = std::move(at.dealer).receive(at.shares);
  if (result)
    for (const auto& p : at.parties) CHECK(p.check_result(result->commitments, result->proof));
  if (kept) *kept = std::move(at.parties);
  return result;
}

}  // namespace

TEST_CASE("seats of a gadget list prove their own gadgets and get one proof of the list") {
  const Session s{*GadgetList::parse("shuffle:3;range:64;geq:16"),
                  "bp-r1cs test session",
                  {{10, 20, 30, 30, 10, 20}, {18446744073709551615ull}, {40000, 39999}}};
  auto result = run(s);
  REQUIRE(result);
  CHECK(verify_gadget_list(s.list, s.label, result->commitments, result->proof));
}

TEST_CASE("sessions' proofs checked in one batch: each answer is its own check's") {
  const Session good{*GadgetList::parse("range:8;shuffle:2"), "batch good", {{7}, {1, 2, 2, 1}}};
  const Session bad{*GadgetList::parse("range:16;range:8;geq:8"), "batch bad", {{9}, {3}, {5, 4}}};
  AtShares a = to_shares(good), b = to_shares(bad), c = to_shares(good);
  b.shares[2].t_x += Scalar::one();
  std::vector<R1CSDealerCheckingProof> checking;
  for (AtShares* at : {&a, &b, &c}) {
    auto assembled = std::move(at->dealer).assemble(at->shares);
    REQUIRE(assembled);
    checking.push_back(std::move(*assembled));
  }
  CHECK(checking[1].generators() == GadgetList::parse("range:16;range:8;geq:8")->generators_capacity());
  auto answers = R1CSDealerCheckingProof::check_batch(std::move(checking));
  REQUIRE(answers.size() == 3);
  REQUIRE(answers[0]);
  REQUIRE(answers[2]);
  CHECK(verify_gadget_list(good.list, good.label, answers[0]->commitments, answers[0]->proof));
  REQUIRE_FALSE(answers[1]);
  CHECK(answers[1].error().kind == MpcErrorKind::MalformedProofShares);
  CHECK(answers[1].error().blamed == std::vector<size_t>{2});
  // A state checked once is consumed.
  AtShares d = to_shares(good);
  auto once = std::move(d.dealer).assemble(d.shares);
  REQUIRE(once);
  auto checked = std::move(*once).check();
  CHECK(checked);
  CHECK(std::move(*once).check().error().kind == MpcErrorKind::ConsumedState);
}

TEST_CASE("a party's refusal of a result that does not verify says why") {
  const Session s{*GadgetList::parse("range:8;range:16"), "why", {{7}, {9}}};
  std::vector<R1CSPartyAwaitingResult> parties;
  auto result = run(s, nullptr, &parties);
  REQUIRE(result);
  REQUIRE(parties.size() == 2);
  R1CSProof forged = result->proof;
  forged.t_x += Scalar::one();
  auto refused = parties[0].check_result(result->commitments, forged);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == MpcErrorKind::MaliciousDealer);
  const std::string& why = refused.error().detail;
  CHECK(why.rfind("the result does not verify: ", 0) == 0);
  CHECK(why.size() > std::string("the result does not verify: ").size());
}

TEST_CASE("a seat whose share does not fit its own commitments is blamed") {
  const Session s{*GadgetList::parse("range:8;range:8;range:8"), "blame", {{1}, {2}, {3}}};
  auto result = run(s, [](std::vector<R1CSProofShare>& shares) { shares[1].e_blinding += Scalar::one(); });
  REQUIRE_FALSE(result);
  CHECK(result.error().kind == MpcErrorKind::MalformedProofShares);
  CHECK(result.error().blamed == std::vector<size_t>{1});
}

TEST_CASE("a party pins its gadget: another seat is refused the same way whatever its values") {
  const auto list = *GadgetList::parse("range:16;range:8");
  std::vector<std::string> refusals;
  for (uint64_t v : {0u, 200u}) {
    auto party = R1CSPartyAwaitingSeat::create(gadget("range:8"), {v}, blindings(1));
    REQUIRE(party);
    auto seat = std::move(*party).take_seat(list, 0, "x");
    REQUIRE_FALSE(seat);
    CHECK(seat.error().kind == MpcErrorKind::InvalidParameters);
    refusals.push_back(seat.error().detail);
  }
  CHECK(refusals[0] == refusals[1]);
  // A false statement is refused before any seat: its own values, its own business.
  auto outside = R1CSPartyAwaitingSeat::create(gadget("range:8"), {256}, blindings(1));
  REQUIRE_FALSE(outside);
  CHECK(outside.error().kind == MpcErrorKind::ValueOutOfRange);
  auto not_a_shuffle = R1CSPartyAwaitingSeat::create(gadget("shuffle:2"), {1, 2, 3, 4}, blindings(4));
  REQUIRE_FALSE(not_a_shuffle);
  CHECK(not_a_shuffle.error().kind == MpcErrorKind::ValueOutOfRange);
}

TEST_CASE("a seat in a list over the session limits is the dealer's doing, refused before anything is built") {
  // At every limit: 4,096 multipliers, 1,024 commitments.
  std::string at = "range:32";
  for (int k = 0; k < 63; ++k) at += ";range:64";
  CHECK_FALSE(gadget_list_over_limits(*GadgetList::parse(at + ";geq:32;sum:957")).has_value());
  const std::vector<std::pair<std::string, std::string>> over = {
      {at + ";geq:33", "takes 4097 multipliers; a gadget session takes at most 4096"},
      {at + ";geq:32;sum:958", "takes 1025 commitments; a gadget session takes at most 1024"},
      {"range:32;shuffle:258", "seat 1 (shuffle:258) takes 514 multipliers; a seat takes at most 512"},
  };
  for (const auto& entry : over) {
    const std::string& text = entry.first;
    const std::string& named = entry.second;
    CAPTURE(text);
    const auto list = *GadgetList::parse(text);
    auto why = gadget_list_over_limits(list);
    REQUIRE(why.has_value());
    CHECK(why->find(named) != std::string::npos);
    auto party = R1CSPartyAwaitingSeat::create(gadget("range:32"), {5}, blindings(1));
    REQUIRE(party);
    auto seat = std::move(*party).take_seat(list, 0, "x");
    REQUIRE_FALSE(seat);
    CHECK(seat.error().kind == MpcErrorKind::MaliciousDealer);
    CHECK(seat.error().detail == *why);
  }
}

TEST_CASE("a round that misquotes the party's own message is the dealer's doing") {
  const auto list = *GadgetList::parse("range:8;range:8");
  auto a = R1CSPartyAwaitingSeat::create(gadget("range:8"), {5}, blindings(1));
  auto b = R1CSPartyAwaitingSeat::create(gadget("range:8"), {6}, blindings(1));
  auto sa = std::move(*a).take_seat(list, 0, "x");
  auto sb = std::move(*b).take_seat(list, 1, "x");
  REQUIRE(sa);
  REQUIRE(sb);
  std::vector<R1CSFirstPhaseShare> misquoted{sb->second, sb->second};
  auto next = std::move(sa->first).apply(misquoted);
  REQUIRE_FALSE(next);
  CHECK(next.error().kind == MpcErrorKind::MaliciousDealer);
  auto dealer = R1CSDealerAwaitingFirstPhases::create(list, "x");
  auto d1 = std::move(*dealer).receive({sa->second});
  REQUIRE_FALSE(d1);
  CHECK(d1.error().kind == MpcErrorKind::WrongNumPhaseShares);
}
