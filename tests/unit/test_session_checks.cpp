// The sessions' final proof checks through a ProofChecker: sessions whose last shares arrive
// together are checked in one batch pass, each still gets the verdict its own check would
// give (a lying party is blamed, the others finish), and a session that moves on or is shut
// down while its proof is checked follows the rules of the record as before.
#include <doctest/doctest.h>

#include "session_harness.hpp"

using namespace bp;
using namespace bp::server;
using namespace bp::server::testing;

namespace {

// Two real parties through both challenge rounds, then their shares (the second party's
// l_1 changed by one when `lie`): every share is delivered.
struct TwoParties {
  std::shared_ptr<FakeLink> a, b;
  std::optional<mpc::PartyAwaitingResult> a_result;
};

TwoParties deliver_every_share(Harness& h, bool lie = false) {
  TwoParties t{h.join(), h.join(), std::nullopt};
  Party pa(h, t.a, 5), pb(h, t.b, 200);
  h.deliver(t.a, pa.commitment);
  h.deliver(t.b, pb.commitment);
  auto* bits = t.a->last<mpc::BitChallengeMsg>();
  REQUIRE(bits);
  auto pa2 = std::move(*pa.awaiting_bits).apply_challenge(*bits);
  auto pb2 = std::move(*pb.awaiting_bits).apply_challenge(*bits);
  REQUIRE((pa2 && pb2));
  h.deliver(t.a, pa2->second);
  h.deliver(t.b, pb2->second);
  auto* poly = t.a->last<mpc::PolyChallengeMsg>();
  REQUIRE(poly);
  auto pa3 = std::move(pa2->first).apply_challenge(*poly);
  auto pb3 = std::move(pb2->first).apply_challenge(*poly);
  REQUIRE((pa3 && pb3));
  if (lie) pb3->second.l_vec[1] += Scalar::one();
  h.deliver(t.a, pa3->second);
  h.deliver(t.b, pb3->second);
  t.a_result.emplace(std::move(pa3->first));
  return t;
}

bool has_line(const Metrics& metrics, const std::string& line) {
  return metrics.prometheus_text().find(line + "\n") != std::string::npos;
}

// One session of two honest parties whose shares are all in, its proof waiting in a checker
// that runs on an io_context of its own.
struct OneWaiting {
  boost::asio::io_context checks;
  Metrics checker_metrics;
  ProofChecker checker{checks, checker_metrics};
  Harness h{2, checker};
  TwoParties run = deliver_every_share(h);

  // Runs what the session posted, then the check, then the session's answer to it.
  void settle() {
    h.poll();
    checks.poll();
    h.poll();
  }
};

}  // namespace

TEST_CASE("sessions that end together are checked in one pass, each with its own verdict") {
  boost::asio::io_context checks;
  Metrics checker_metrics;
  ProofChecker checker(checks, checker_metrics);
  Harness honest1(2, checker), liar(2, checker), honest2(2, checker);
  std::vector<TwoParties> runs;
  runs.push_back(deliver_every_share(honest1));
  runs.push_back(deliver_every_share(liar, true));
  runs.push_back(deliver_every_share(honest2));
  // Every share is in, and nothing is decided before the check.
  for (Harness* h : {&honest1, &liar, &honest2}) {
    CHECK(h->recorded().empty());
    CHECK_FALSE(h->session->finished());
  }
  checks.poll();
  for (Harness* h : {&honest1, &liar, &honest2}) h->poll();
  CHECK(has_line(checker_metrics, "bp_final_check_passes_total 1"));
  CHECK(has_line(checker_metrics, "bp_final_check_proofs_total 3"));

  for (auto [h, run] : {std::pair{&honest1, &runs[0]}, std::pair{&honest2, &runs[2]}}) {
    REQUIRE(h->recorded().size() == 1);
    CHECK(h->recorded()[0].ok);
    auto* result = run->a->last<wire::ResultMsg>();
    REQUIRE(result);
    CHECK(wire::attestation_valid(*result));
    CHECK(run->a_result->check_result(result->result));
    CHECK(h->session->finished());
  }
  REQUIRE(liar.recorded().size() == 1);
  CHECK_FALSE(liar.recorded()[0].ok);
  CHECK(liar.recorded()[0].blamed == std::vector<size_t>{1});
  auto* abort = runs[1].a->last<wire::AbortMsg>();
  REQUIRE(abort);
  CHECK(abort->blamed == std::vector<size_t>{1});
  CHECK(abort->reason.rfind("MalformedProofShares", 0) == 0);
}

TEST_CASE("a pass holds proofs up to its bound on positions, and at least one") {
  // Not a structured binding: CAPTURE's lambda cannot name one on clang 14.
  for (const auto& bound_and_passes : {std::pair<size_t, int>{4, 2}, std::pair<size_t, int>{1, 3}}) {
    const size_t bound = bound_and_passes.first;
    const int passes = bound_and_passes.second;
    CAPTURE(bound);
    boost::asio::io_context checks;
    Metrics checker_metrics;
    ProofChecker checker(checks, checker_metrics, bound);
    Harness first(2, checker), second(2, checker), third(2, checker);  // two positions each
    std::vector<TwoParties> runs;
    for (Harness* h : {&first, &second, &third}) runs.push_back(deliver_every_share(*h));
    checks.poll();
    for (Harness* h : {&first, &second, &third}) {
      h->poll();
      REQUIRE(h->recorded().size() == 1);
      CHECK(h->recorded()[0].ok);
    }
    CHECK(has_line(checker_metrics, "bp_final_check_passes_total " + std::to_string(passes)));
    CHECK(has_line(checker_metrics, "bp_final_check_proofs_total 3"));
  }
}

TEST_CASE("a proof checked alone is checked as soon as its pass runs") {
  OneWaiting w;
  w.settle();
  REQUIRE(w.h.recorded().size() == 1);
  CHECK(w.h.recorded()[0].ok);
  CHECK(w.run.b->last<wire::ResultMsg>());
  CHECK(has_line(w.checker_metrics, "bp_final_check_passes_total 1"));
  CHECK(has_line(w.checker_metrics, "bp_final_check_proofs_total 1"));
}

TEST_CASE("a session that moves on while its proof is checked hands nothing out") {
  OneWaiting w;
  w.h.session->lost("the lease ran out");
  w.settle();
  CHECK(w.h.recorded().empty());
  CHECK_FALSE(w.run.a->last<wire::ResultMsg>());
  auto* again = w.run.a->last<wire::AbortMsg>();
  REQUIRE(again);
  CHECK(again->reconnect_after_ms == kReconnectAfterMs);
}

TEST_CASE("SIGTERM's hand-over releases a session whose proof is being checked") {
  OneWaiting w;
  w.h.session->hand_over("this dealer replica is shutting down");
  w.settle();
  CHECK(w.h.record.releases == 1);  // at once, not when its heartbeat goes stale
  CHECK(w.h.recorded().empty());    // the check's verdict, come late, hands nothing out
  CHECK_FALSE(w.run.a->last<wire::ResultMsg>());
  auto* again = w.run.a->last<wire::AbortMsg>();
  REQUIRE(again);
  CHECK(again->reconnect_after_ms == kReconnectAfterMs);
}

TEST_CASE("a shutdown while the proof is checked leaves the verdict to the check") {
  OneWaiting w;
  w.h.session->shutdown(AbortKind::Shutdown, "the dealer stops");
  w.settle();
  REQUIRE(w.h.recorded().size() == 1);
  CHECK(w.h.recorded()[0].ok);
  CHECK(w.run.a->last<wire::ResultMsg>());
}
