// A quorum session (wire 1.7) without sockets: parties are seated but told nothing until the
// set is fixed (every listed party present, or the join window's end with the quorum); the
// set's positions and label follow from who is present; fewer than the quorum ends the
// session naming who was missing; a party that leaves or speaks before the set is fixed
// frees its seat without blame; and a gathering session taken over keeps its seats.
#include <doctest/doctest.h>

#include "session_harness.hpp"

using namespace bp;
using namespace bp::server;
using namespace bp::server::testing;

namespace {

using std::chrono::milliseconds;

// Every link's party proves its value under the terms its Joined names, through every round;
// the result each link got, or nothing.
void prove_together(Harness& h, const std::vector<std::shared_ptr<FakeLink>>& links) {
  const auto* joined = links.front()->last<wire::JoinedMsg>();
  REQUIRE(joined);
  const mpc::SessionParams params{joined->bits, joined->session_positions, joined->transcript_label};
  SystemRandom rng;
  std::vector<mpc::PartyAwaitingBitChallenge> bits;
  for (size_t j = 0; j < links.size(); ++j) {
    auto start = mpc::PartyAwaitingPosition::create(h.bp_gens, h.pc_gens, params, 10 + j, Scalar::random(rng));
    REQUIRE(start);
    auto seated = std::move(*start).assign_position(links[j]->last<wire::JoinedMsg>()->position);
    REQUIRE(seated);
    bits.push_back(std::move(seated->first));
    h.deliver(links[j], seated->second);
  }
  std::vector<mpc::PartyAwaitingPolyChallenge> polys;
  for (size_t j = 0; j < links.size(); ++j) {
    REQUIRE(links[j]->last<mpc::BitChallengeMsg>());
    auto next = std::move(bits[j]).apply_challenge(*links[j]->last<mpc::BitChallengeMsg>());
    REQUIRE(next);
    polys.push_back(std::move(next->first));
    h.deliver(links[j], next->second);
  }
  for (size_t j = 0; j < links.size(); ++j) {
    REQUIRE(links[j]->last<mpc::PolyChallengeMsg>());
    auto next = std::move(polys[j]).apply_challenge(*links[j]->last<mpc::PolyChallengeMsg>());
    REQUIRE(next);
    h.deliver(links[j], next->second);
  }
}

bool heard_joined(const FakeLink& link) {
  for (const auto& m : link.received)
    if (std::holds_alternative<wire::JoinedMsg>(m)) return true;
  return false;
}

}  // namespace

TEST_CASE("a quorum session tells nobody its seat until the window ends, then proves for those present") {
  Harness h(Harness::Quorum{4, 2, milliseconds(30)});
  auto a = h.join(), c = h.join();
  CHECK_FALSE(heard_joined(*a));
  CHECK_FALSE(heard_joined(*c));
  CHECK(h.record.last().listed_parties == 0u);  // their seats are in the record, the set is not fixed
  CHECK(h.record.last().seats[1].taken);
  h.run_for(milliseconds(200));  // the window ends
  for (const auto& link : {a, c}) {
    const auto* joined = link->last<wire::JoinedMsg>();
    REQUIRE(joined);
    CHECK(joined->session_positions == 2u);
    CHECK(joined->transcript_label == mpc::session_label(kSessionId, 8, 2, "unit"));
  }
  CHECK(a->last<wire::JoinedMsg>()->position == 0u);
  CHECK(c->last<wire::JoinedMsg>()->position == 1u);
  const auto fixed = h.record.last();
  CHECK(fixed.listed_parties == 4u);
  CHECK(fixed.not_joined == std::vector<uint32_t>{2, 3});
  CHECK(fixed.positions == 2u);
  const auto metrics = h.metrics.prometheus_text();
  CHECK(metrics.find("bp_quorum_sets_fixed_total 1\n") != std::string::npos);
  CHECK(metrics.find("bp_quorum_parties_left_out_total 2\n") != std::string::npos);
  prove_together(h, {a, c});
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].ok);
  CHECK(h.recorded()[0].parties == 2u);
  for (const auto& link : {a, c}) CHECK(link->last<wire::ResultMsg>());
}

TEST_CASE("every listed party present fixes the set at once") {
  Harness h(Harness::Quorum{3, 2, std::chrono::seconds(30)});
  auto a = h.join(), b = h.join();
  CHECK_FALSE(heard_joined(*b));
  auto c = h.join();
  for (const auto& link : {a, b, c}) {
    REQUIRE(link->last<wire::JoinedMsg>());
    CHECK(link->last<wire::JoinedMsg>()->session_positions == 3u);
  }
  CHECK(h.record.last().not_joined.empty());
  prove_together(h, {a, b, c});
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].ok);
}

TEST_CASE("fewer than the quorum when the window ends aborts, naming who was missing") {
  Harness h(Harness::Quorum{4, 3, milliseconds(20)});
  auto a = h.join(), b = h.join();
  h.run();
  REQUIRE(h.recorded().size() == 1);
  CHECK_FALSE(h.recorded()[0].ok);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{2, 3});
  for (const auto& link : {a, b}) {
    CHECK_FALSE(heard_joined(*link));
    REQUIRE(link->last<wire::AbortMsg>());
    CHECK(link->last<wire::AbortMsg>()->reason ==
          "quorum not reached: 2 of 4 listed parties joined before the join window ended, 3 needed");
    CHECK(link->closed);
  }
  CHECK(h.metrics.prometheus_text().find("bp_sessions_aborted_total{reason=\"quorum_not_reached\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("a party that speaks or leaves before the set is fixed frees its seat, blaming nobody") {
  Harness h(Harness::Quorum{4, 2, milliseconds(30)});
  auto early = h.join(), gone = h.join(), b = h.join();
  // It has no positions yet, so anything it sends is out of turn: it is let go, the session is not.
  h.deliver(early, wire::SessionCreatedMsg{kSessionId, "not a round message"});
  CHECK(early->closed);
  REQUIRE(early->last<wire::AbortMsg>());
  CHECK(early->last<wire::AbortMsg>()->blamed.empty());
  CHECK_FALSE(h.record.last().seats[0].taken);
  h.session->disconnected(1, gone);
  auto c = h.join();  // takes the first free seat: the one the early speaker left
  CHECK(c->position == 0u);
  h.run_for(milliseconds(300));  // the grace (50 ms) and the window pass
  CHECK(h.recorded().empty());
  REQUIRE(c->last<wire::JoinedMsg>());
  REQUIRE(b->last<wire::JoinedMsg>());
  CHECK(c->last<wire::JoinedMsg>()->position == 0u);  // c, then b, in seat order
  CHECK(b->last<wire::JoinedMsg>()->position == 1u);
  CHECK(b->last<wire::JoinedMsg>()->session_positions == 2u);
  CHECK_FALSE(heard_joined(*gone));
  prove_together(h, {c, b});
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].ok);
}

TEST_CASE("a gathering session taken over seats its parties again by their tokens, and fixes the set") {
  const std::vector<uint8_t> token_a(wire::kResumeTokenBytes, 0x0a), token_b(wire::kResumeTokenBytes, 0x0b);
  wire::DealerCheckpoint gathered;
  {
    Harness first(Harness::Quorum{3, 2, std::chrono::seconds(30)});
    first.join({}, 0, token_a);
    first.join({}, 0, token_b);
    gathered = first.record.last();
  }
  CHECK(gathered.min_parties == 2u);
  CHECK(gathered.listed_parties == 0u);
  Harness second(Harness::Quorum{3, 2, milliseconds(30)}, gathered, kFirstEpoch + 1);
  auto b = second.join({}, 0, token_b);  // back in the other order: each to its own seat
  auto a = second.join({}, 0, token_a);
  CHECK(a->position == 0u);
  CHECK(b->position == 1u);
  CHECK_FALSE(heard_joined(*a));
  second.run_for(milliseconds(200));
  REQUIRE(a->last<wire::JoinedMsg>());
  CHECK(a->last<wire::JoinedMsg>()->resume_token == token_a);
  CHECK(b->last<wire::JoinedMsg>()->resume_token == token_b);
  prove_together(second, {a, b});
  REQUIRE(second.recorded().size() == 1);
  CHECK(second.recorded()[0].ok);
}

TEST_CASE("a fixed set's checkpoint is the set's terms, and a replica taking it over resumes them") {
  Harness h(Harness::Quorum{4, 2, milliseconds(30)});
  const std::vector<uint8_t> token(wire::kResumeTokenBytes, 0x33);
  auto a = h.join({}, 0, token);
  auto b = h.join();
  h.run_for(milliseconds(200));
  REQUIRE(a->last<wire::JoinedMsg>());
  const auto fixed = h.record.last();
  const auto terms = terms_of(kSessionId, fixed);
  REQUIRE(terms);
  CHECK_FALSE(terms->gathering());
  CHECK(terms->params.positions == 2u);
  CHECK(terms->not_joined == std::vector<uint32_t>{2, 3});
  CHECK(wire::decode_checkpoint(wire::encode_checkpoint(fixed)).value() == fixed);
}

TEST_CASE("a fixed set that loses a party mid-round goes on as a successor of the others") {
  Harness h(Harness::Quorum{3, 2, milliseconds(30), true, milliseconds(40)});
  const std::vector<uint8_t> token_a(wire::kResumeTokenBytes, 0xa1), token_b(wire::kResumeTokenBytes, 0xb2);
  auto a = h.join({}, 0, token_a), b = h.join({}, 0, token_b), c = h.join();
  REQUIRE(c->last<wire::JoinedMsg>());  // every listed party present: the set is fixed
  const auto label = a->last<wire::JoinedMsg>()->transcript_label;
  // a and b commit; c says nothing, and the round's deadline blames it.
  for (const auto& link : {a, b}) {
    const mpc::SessionParams params{8, 3, label};
    SystemRandom rng;
    auto start = mpc::PartyAwaitingPosition::create(h.bp_gens, h.pc_gens, params, 1, Scalar::random(rng));
    auto seated = std::move(*start).assign_position(link->last<wire::JoinedMsg>()->position);
    h.deliver(link, seated->second);
  }
  h.run();
  REQUIRE(h.successors.size() == 1);
  const SessionTerms& next = h.successors.front().first;
  const wire::DealerCheckpoint& checkpoint = h.successors.front().second;
  REQUIRE(h.recorded().size() == 1);
  CHECK_FALSE(h.recorded()[0].ok);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{2});
  CHECK(h.recorded()[0].successor == next.id);
  for (const auto& link : {a, b, c}) {
    REQUIRE(link->last<wire::AbortMsg>());
    CHECK(link->last<wire::AbortMsg>()->successor == next.id);
    CHECK(link->last<wire::AbortMsg>()->blamed == std::vector<size_t>{2});
  }
  const auto metrics = h.metrics.prometheus_text();
  CHECK(metrics.find("bp_successor_sessions_total{reason=\"round_timeout\"} 1\n") != std::string::npos);
  CHECK(metrics.find("bp_parties_excluded_total{reason=\"round_timeout\"} 1\n") != std::string::npos);

  // The successor: the two who answered, listed again and held for their tokens, the same
  // quorum, a label naming the session it follows.
  CHECK(next.gathering());
  CHECK(next.min_parties == 2u);
  CHECK(next.params.positions == 2u);
  CHECK(next.params.label == mpc::session_transcript_label(next.id, 8, 2, "unit after=" + kSessionId, {}));
  REQUIRE(checkpoint.seats.size() == 2);
  CHECK(checkpoint.seats[0].token_hash == wire::hash_resume_token(token_a));
  CHECK(checkpoint.seats[1].token_hash == wire::hash_resume_token(token_b));

  // Run as its own session, it takes its two parties back by those tokens (and nobody else),
  // and they prove together under its label.
  Harness successor(next, checkpoint);
  auto stranger = successor.join();
  REQUIRE(stranger->last<wire::AbortMsg>());
  auto b2 = successor.join({}, 0, token_b), a2 = successor.join({}, 0, token_a);
  REQUIRE(a2->last<wire::JoinedMsg>());
  CHECK(a2->last<wire::JoinedMsg>()->position == 0u);
  CHECK(b2->last<wire::JoinedMsg>()->position == 1u);
  CHECK(a2->last<wire::JoinedMsg>()->transcript_label == next.params.label);
  prove_together(successor, {a2, b2});
  REQUIRE(successor.recorded().size() == 1);
  CHECK(successor.recorded()[0].ok);
}

TEST_CASE("no successor below the quorum, for a session without one, or for a cancel") {
  {
    Harness h(Harness::Quorum{3, 3, milliseconds(30), true, milliseconds(40)});  // every party needed
    auto a = h.join(), b = h.join(), c = h.join();
    h.run();
    CHECK(h.successors.empty());
    REQUIRE(a->last<wire::AbortMsg>());
    CHECK(a->last<wire::AbortMsg>()->successor.empty());
  }
  {
    Harness h(Harness::Quorum{3, 2, milliseconds(30), true});
    auto a = h.join(), b = h.join(), c = h.join();
    h.session->shutdown(AbortKind::Cancelled, "cancelled by its operator");
    h.poll();
    CHECK(h.successors.empty());
    CHECK(a->last<wire::AbortMsg>()->successor.empty());
  }
}

TEST_CASE("a liar's share is excluded by a successor, its reason recorded") {
  Harness h(Harness::Quorum{3, 2, milliseconds(30), true});
  auto a = h.join(), b = h.join(), c = h.join();
  const auto label = a->last<wire::JoinedMsg>()->transcript_label;
  SystemRandom rng;
  for (const auto& link : {a, b, c}) {
    auto start = mpc::PartyAwaitingPosition::create(h.bp_gens, h.pc_gens, mpc::SessionParams{8, 3, label}, 1,
                                                    Scalar::random(rng));
    auto seated = std::move(*start).assign_position(link->last<wire::JoinedMsg>()->position);
    if (link == b) seated->second.A_j = CompressedRistretto{};  // the identity: refused by the audit
    h.deliver(link, seated->second);
  }
  REQUIRE(h.successors.size() == 1);
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].reason.rfind("MalformedBitCommitments", 0) == 0);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{1});
  CHECK(h.successors.front().first.params.positions == 2u);
  CHECK(h.metrics.prometheus_text().find("bp_parties_excluded_total{reason=\"invalid_shares\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("a party whose seat is still on its way to the record when the set is fixed is in it, told once") {
  Harness h(Harness::Quorum{3, 2, milliseconds(30)});
  auto a = h.join();
  h.record.hold = true;  // b's and c's seats wait in the record's queue
  auto b = h.join(), c = h.join();
  h.run_for(milliseconds(200));  // the window ends meanwhile
  while (!h.record.held.empty()) {
    auto held = std::move(h.record.held);
    h.record.held.clear();
    for (auto& answer : held) answer();
    h.poll();
  }
  for (const auto& link : {a, b, c}) {
    size_t joined = 0;
    for (const auto& m : link->received)
      if (const auto* j = std::get_if<wire::JoinedMsg>(&m)) {
        ++joined;
        CHECK(j->resume_token.size() == wire::kResumeTokenBytes);
        CHECK(j->session_positions == 3u);
      }
    CHECK(joined == 1u);
  }
  h.record.hold = false;
  prove_together(h, {a, b, c});
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].ok);
}
