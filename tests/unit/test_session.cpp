// The dealer's session without sockets: AggregationSession driven through fake PartyLinks by
// real mpc parties, on one io_context run to quiescence. What the integration tests show
// through the daemon, pinned down here one rule at a time: the outcome is recorded before
// anyone hears it, blame names the culprit's position, a deadline blames the late, a seat is
// resumed only with its token, and nothing is handed out when the record fails. Then
// takeover: a seat and each round's challenges are checkpointed before anyone hears them, a
// session rebuilt from its checkpoint at the next epoch sends the same challenges and ends in
// the same proof, and a session whose writes are fenced stops and sends its parties away.
#include <doctest/doctest.h>

#include "session_harness.hpp"

using namespace bp;
using namespace bp::server;
using namespace bp::server::testing;

TEST_CASE("a session runs to a signed result that is recorded before any party hears it") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  REQUIRE(a->position == 0u);
  REQUIRE(b->position == 1u);
  REQUIRE(a->last<wire::JoinedMsg>());
  Party pa(h, a, 5), pb(h, b, 200);
  h.deliver(a, pa.commitment);
  CHECK(b->last<wire::JoinedMsg>());  // the round waits for every party
  h.deliver(b, pb.commitment);
  auto* bit_challenge = a->last<mpc::BitChallengeMsg>();
  REQUIRE(bit_challenge);
  auto pa2 = std::move(*pa.awaiting_bits).apply_challenge(*bit_challenge);
  auto pb2 = std::move(*pb.awaiting_bits).apply_challenge(*bit_challenge);
  REQUIRE((pa2 && pb2));
  h.deliver(a, pa2->second);
  h.deliver(b, pb2->second);
  auto* poly_challenge = b->last<mpc::PolyChallengeMsg>();
  REQUIRE(poly_challenge);
  auto pa3 = std::move(pa2->first).apply_challenge(*poly_challenge);
  auto pb3 = std::move(pb2->first).apply_challenge(*poly_challenge);
  REQUIRE((pa3 && pb3));
  CHECK(h.recorded().empty());
  h.deliver(a, pa3->second);
  h.deliver(b, pb3->second);

  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].ok);
  for (auto* link : {a.get(), b.get()}) {
    auto* result = link->last<wire::ResultMsg>();
    REQUIRE(result);
    CHECK(wire::attestation_valid(*result));
    CHECK(result->attestation->dealer_key == h.dealer_key.public_key());
    CHECK(link->closed);
    CHECK(link->session_finished_at_result);
  }
  CHECK(pa3->first.check_result(a->last<wire::ResultMsg>()->result));
  CHECK(h.session->finished());
}

TEST_CASE("a message of the wrong round aborts the session and blames its sender") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1);
  h.deliver(b, wire::SessionCreatedMsg{kSessionId, "not a round message"});
  REQUIRE(h.recorded().size() == 1);
  CHECK_FALSE(h.recorded()[0].ok);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{1});
  auto* abort = a->last<wire::AbortMsg>();
  REQUIRE(abort);
  CHECK(abort->reason.find("out-of-order message") != std::string::npos);
  CHECK(abort->blamed == std::vector<size_t>{1});
  CHECK((a->closed && b->closed));
  // The metric's label is a fixed kind, and every kind is exported from the start.
  const auto metrics = h.metrics.prometheus_text();
  CHECK(metrics.find("bp_sessions_aborted_total{reason=\"protocol_violation\"} 1\n") != std::string::npos);
  CHECK(metrics.find("bp_sessions_aborted_total{reason=\"join_timeout\"} 0\n") != std::string::npos);
}

TEST_CASE("a commitment that fails the dealer's audit is blamed once: in the field, not in the reason") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1), pb(h, b, 2);
  pb.commitment.A_j = CompressedRistretto{};  // the identity: refused by the audit
  h.deliver(a, pa.commitment);
  h.deliver(b, pb.commitment);
  auto* abort = a->last<wire::AbortMsg>();
  REQUIRE(abort);
  CHECK(abort->blamed == std::vector<size_t>{1});
  CHECK(abort->reason.rfind("MalformedBitCommitments", 0) == 0);
  CHECK(abort->reason.find("blamed") == std::string::npos);
  CHECK(h.metrics.prometheus_text().find("bp_sessions_aborted_total{reason=\"invalid_shares\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("two different messages in one round blame the party that sent them") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party first(h, a, 1), second(h, a, 2);
  h.deliver(a, first.commitment);
  h.deliver(a, second.commitment);
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{0});
  CHECK(b->last<wire::AbortMsg>()->reason == "a second, different message in one round");
}

TEST_CASE("the same message again (a resumed party's resend) is harmless") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1);
  h.deliver(a, pa.commitment);
  h.deliver(a, pa.commitment);
  CHECK(h.recorded().empty());
  CHECK_FALSE(b->last<wire::AbortMsg>());
}

TEST_CASE("a join deadline blames the seats nobody took") {
  Harness h(3, std::chrono::milliseconds(20));
  auto a = h.join();
  h.run();  // until the deadline fires
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{1, 2});
  CHECK(a->last<wire::AbortMsg>()->reason == "only 1 of 3 parties joined before the deadline");
}

TEST_CASE("a round deadline blames the parties that did not answer") {
  Harness h(2, std::chrono::milliseconds(20));
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1);
  h.deliver(a, pa.commitment);
  h.run();
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{1});
  CHECK(a->last<wire::AbortMsg>()->reason == "round deadline passed in bit_commitments");
}

TEST_CASE("a seat is resumed with its token only, and a full session refuses newcomers") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  h.session->disconnected(0, a);
  h.run();  // past the grace period: a party that does not come back is blamed
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].blamed == std::vector<size_t>{0});
  CHECK(b->last<wire::AbortMsg>()->reason == "party disconnected");

  Harness h2(2);
  auto c = h2.join();
  h2.join();
  const auto c_token = c->last<wire::JoinedMsg>()->resume_token;
  h2.session->disconnected(0, c);
  h2.poll();
  auto stranger = h2.join(std::vector<uint8_t>(wire::kResumeTokenBytes, 7));
  CHECK(stranger->last<wire::AbortMsg>()->reason == "no vacant seat for this resume token");
  auto newcomer = h2.join();
  CHECK(newcomer->last<wire::AbortMsg>()->reason == "the session is full");
  auto back = std::make_shared<FakeLink>();
  h2.session->join(back, c_token, std::nullopt);
  h2.poll();  // before the grace period ends
  REQUIRE(back->position == 0u);
  CHECK(back->last<wire::JoinedMsg>()->resume_token == c_token);
  CHECK(h2.recorded().empty());
  // Back again before the session noticed the last connection drop: the token takes the seat over.
  auto again = std::make_shared<FakeLink>();
  h2.session->join(again, c_token, std::nullopt);
  h2.poll();
  REQUIRE(again->position == 0u);
  CHECK(back->closed);
  h2.session->disconnected(0, back);  // the old connection's late news changes nothing
  h2.poll();
  CHECK(h2.recorded().empty());
}

TEST_CASE("when the record does not take the outcome, no party gets it: they are sent to join again") {
  Harness h(1);
  auto a = h.join();
  Party pa(h, a, 9);
  h.deliver(a, pa.commitment);
  auto pa2 = std::move(*pa.awaiting_bits).apply_challenge(*a->last<mpc::BitChallengeMsg>());
  h.deliver(a, pa2->second);
  auto pa3 = std::move(pa2->first).apply_challenge(*a->last<mpc::PolyChallengeMsg>());
  h.record.failure = RecordError{"database or disk is full"};
  h.deliver(a, pa3->second);
  h.run_for(std::chrono::milliseconds(800));  // tried again for the record's patience (100 ms here), then given up
  REQUIRE(h.recorded().size() > 1);
  CHECK(h.recorded()[0].ok);  // the record was asked to keep a result...
  for (const auto& m : a->received) CHECK_FALSE(std::holds_alternative<wire::ResultMsg>(m));
  auto* abort = a->last<wire::AbortMsg>();
  REQUIRE(abort);  // ...and the party got none: the session waits in the record at its last checkpoint
  CHECK(abort->reason.find("the record did not take the outcome (database or disk is full)") != std::string::npos);
  CHECK(abort->reconnect_after_ms > 0);
  CHECK(a->closed);
  CHECK(h.metrics.prometheus_text().find("bp_outcomes_unrecorded_total 1\n") != std::string::npos);
}

TEST_CASE("shutdown aborts a running session with the reason given") {
  Harness h(2);
  auto a = h.join();
  h.session->shutdown(AbortKind::Shutdown, "dealer shutting down");
  h.poll();
  REQUIRE(h.recorded().size() == 1);
  CHECK(h.recorded()[0].reason == "dealer shutting down");
  CHECK(a->last<wire::AbortMsg>()->reason == "dealer shutting down");
  auto late = h.join();  // hears why, as the seated parties did
  CHECK(late->last<wire::AbortMsg>()->reason == "the session has ended: dealer shutting down");
}

TEST_CASE("a party hears of its seat, and of each round's challenge, only once the record holds them") {
  Harness h(2);
  h.record.hold = true;
  auto a = h.join();
  CHECK(a->received.empty());  // seated, but the checkpoint is not written yet
  REQUIRE(h.record.checkpoints.size() == 1);
  CHECK(h.record.last().seats[0].taken);
  CHECK(h.record.checkpoints.back().phase == "join");
  CHECK(h.record.checkpoints.back().joined == 1);
  for (auto& answer : h.record.held) answer();
  h.record.held.clear();
  h.poll();
  const auto* joined = a->last<wire::JoinedMsg>();
  REQUIRE(joined);
  // The record keeps the token's hash, never the token.
  CHECK(h.record.last().seats[0].token_hash == wire::hash_resume_token(joined->resume_token));
  h.record.hold = false;
  auto b = h.join();
  Party pa(h, a, 3), pb(h, b, 4);
  h.record.hold = true;
  h.deliver(a, pa.commitment);
  h.deliver(b, pb.commitment);
  CHECK_FALSE(a->last<mpc::BitChallengeMsg>());  // decided, not yet in the record
  CHECK(h.record.last().bit_commitments == std::vector<BitCommitment>{pa.commitment, pb.commitment});
  for (auto& answer : h.record.held) answer();
  h.poll();
  CHECK(a->last<mpc::BitChallengeMsg>());
  CHECK(b->last<mpc::BitChallengeMsg>());
}

TEST_CASE(
    "a session rebuilt from its checkpoint at the next epoch sends the same challenges and makes the same proof") {
  Harness first(2);
  auto a = first.join(), b = first.join();
  const auto a_token = a->last<wire::JoinedMsg>()->resume_token, b_token = b->last<wire::JoinedMsg>()->resume_token;
  Party pa(first, a, 11), pb(first, b, 12);
  first.deliver(a, pa.commitment);
  first.deliver(b, pb.commitment);
  const auto after_round_one = first.record.last();
  const auto bit_challenge = *a->last<mpc::BitChallengeMsg>();
  auto pa2 = std::move(*pa.awaiting_bits).apply_challenge(bit_challenge);
  auto pb2 = std::move(*pb.awaiting_bits).apply_challenge(bit_challenge);
  REQUIRE((pa2 && pb2));
  first.deliver(a, pa2->second);
  first.deliver(b, pb2->second);
  const auto after_round_two = first.record.last();
  CHECK(after_round_two.poly_commitments.size() == 2);
  const auto poly_challenge = *a->last<mpc::PolyChallengeMsg>();

  // Another replica takes over after round one: the same bit challenge, byte for byte.
  Harness second(2, std::chrono::seconds(30), after_round_one, kFirstEpoch + 1);
  auto a_back = second.join(a_token);
  REQUIRE(a_back->position == 0u);
  REQUIRE(a_back->received.size() == 2);  // Joined, then the challenge it may have missed
  CHECK(wire::encode(a_back->received[1]) == wire::encode(bit_challenge));
  second.deliver(a_back, pa.commitment);  // the party's last message again: harmless
  CHECK(second.recorded().empty());

  // And after round two: the same poly challenge, and the same proof from the same shares.
  Harness third(2, std::chrono::seconds(30), after_round_two, kFirstEpoch + 2);
  auto a3 = third.join(a_token), b3 = third.join(b_token);
  REQUIRE(a3->received.size() == 2);
  CHECK(wire::encode(a3->received[1]) == wire::encode(poly_challenge));
  CHECK(third.record.checkpoints.empty());  // resuming a seat writes nothing
  auto pa3 = std::move(pa2->first).apply_challenge(poly_challenge);
  auto pb3 = std::move(pb2->first).apply_challenge(poly_challenge);
  REQUIRE((pa3 && pb3));
  first.deliver(a, pa3->second);
  first.deliver(b, pb3->second);
  third.deliver(a3, pa3->second);
  third.deliver(b3, pb3->second);
  for (auto* h : {&first, &third}) {
    REQUIRE(h->recorded().size() == 1);
    REQUIRE(h->recorded()[0].ok);
  }
  CHECK(first.recorded()[0].result->result.proof.to_bytes() == third.recorded()[0].result->result.proof.to_bytes());
  CHECK(pa3->first.check_result(a3->last<wire::ResultMsg>()->result));
  CHECK(third.metrics.prometheus_text().find("bp_sessions_taken_over_total 1\n") != std::string::npos);
}

TEST_CASE("a session whose write is fenced sends nothing it decided, and tells its parties to join again") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1), pb(h, b, 2);
  h.deliver(a, pa.commitment);
  h.record.failure = RecordError{"replica r2 took it over (epoch 2)", RecordErrorKind::Fenced};
  h.deliver(b, pb.commitment);
  for (auto* link : {a.get(), b.get()}) {
    CHECK_FALSE(link->last<mpc::BitChallengeMsg>());
    const auto* again = link->last<wire::AbortMsg>();
    REQUIRE(again);
    CHECK(again->reconnect_after_ms > 0);
    CHECK(again->blamed.empty());
    CHECK(again->reason.find("took it over") != std::string::npos);
    CHECK(link->closed);
  }
  CHECK(h.recorded().empty());
  CHECK(h.session->finished());
  auto late = h.join();  // a party that comes here still is sent on too
  CHECK(late->last<wire::AbortMsg>()->reconnect_after_ms > 0);
}

TEST_CASE("a fenced outcome is never handed out") {
  Harness h(1);
  auto a = h.join();
  Party pa(h, a, 9);
  h.deliver(a, pa.commitment);
  auto pa2 = std::move(*pa.awaiting_bits).apply_challenge(*a->last<mpc::BitChallengeMsg>());
  h.deliver(a, pa2->second);
  auto pa3 = std::move(pa2->first).apply_challenge(*a->last<mpc::PolyChallengeMsg>());
  h.record.failure = RecordError{"closed by another replica", RecordErrorKind::Fenced};
  h.deliver(a, pa3->second);
  for (const auto& m : a->received) CHECK_FALSE(std::holds_alternative<wire::ResultMsg>(m));
  REQUIRE(a->last<wire::AbortMsg>());
  CHECK(a->last<wire::AbortMsg>()->reconnect_after_ms > 0);
}

TEST_CASE("a record that fails for a moment is tried again; for longer, the session waits in the record") {
  Harness h(2);
  h.record.failure = RecordError{"connection lost"};
  h.record.failures_left = 1;
  auto a = h.join();
  h.run_for(std::chrono::milliseconds(400));
  CHECK(a->last<wire::JoinedMsg>());  // the second try went through
  CHECK(h.record.checkpoints.size() == 2);

  h.record.failures_left = -1;  // from now on it fails
  auto b = h.join();
  h.run_for(std::chrono::milliseconds(800));
  CHECK_FALSE(b->last<wire::JoinedMsg>());
  REQUIRE(b->last<wire::AbortMsg>());
  CHECK(b->last<wire::AbortMsg>()->reconnect_after_ms > 0);
  CHECK(b->last<wire::AbortMsg>()->reason.find("the record is unavailable") != std::string::npos);
  CHECK(h.recorded().empty());  // nothing decided: the session waits in the record to be taken over
}

TEST_CASE("handing a session over releases it and sends its parties to join again") {
  Harness h(2);
  auto a = h.join();
  h.session->hand_over("this dealer replica is shutting down");
  h.poll();
  CHECK(h.record.releases == 1);
  REQUIRE(a->last<wire::AbortMsg>());
  CHECK(a->last<wire::AbortMsg>()->reconnect_after_ms > 0);
  CHECK(a->closed);
  CHECK(h.recorded().empty());
  CHECK(h.session->finished());
}

TEST_CASE("a party that never heard its Joined comes back with the seat token it picked and gets that seat") {
  Harness h(2);
  const std::vector<uint8_t> picked(wire::kResumeTokenBytes, 0x42);
  auto lost = std::make_shared<FakeLink>();
  h.session->join(lost, {}, std::nullopt, picked);
  h.poll();
  REQUIRE(lost->last<wire::JoinedMsg>());
  CHECK(lost->last<wire::JoinedMsg>()->resume_token == picked);  // the party's own token
  CHECK(h.record.last().seats[0].token_hash == wire::hash_resume_token(picked));
  // As if that Joined had been lost: the same seat token again is the same seat, not a second one.
  auto again = std::make_shared<FakeLink>();
  h.session->join(again, {}, std::nullopt, picked);
  h.poll();
  REQUIRE(again->position == 0u);
  CHECK(lost->closed);
  auto other = h.join();
  CHECK(other->position == 1u);
}
