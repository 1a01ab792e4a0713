// The dealer's session without sockets: AggregationSession driven through fake PartyLinks by
// real mpc parties, on one io_context run to quiescence. What the integration tests show
// through the daemon, pinned down here one rule at a time: the outcome is recorded before
// anyone hears it, blame names the culprit's position, a deadline blames the late, a seat is
// resumed only with its token, and nothing is handed out when the record fails.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>

#include "bp/mpc/party.hpp"
#include "bp/random.hpp"
#include "bp/wire/auth.hpp"
#include "session.hpp"
#include <spdlog/spdlog.h>

using namespace bp;
using namespace bp::server;

namespace {

[[maybe_unused]] const bool kQuiet = (spdlog::set_level(spdlog::level::off), true);  // the session logs every step

// A party's connection as the session sees it: what it was sent, whether it was closed.
class FakeLink final : public PartyLink {
 public:
  void seated(std::weak_ptr<AggregationSession> session, size_t position) override {
    this->session = std::move(session);
    this->position = position;
  }
  void send(std::shared_ptr<const std::vector<uint8_t>> frame) override {
    auto decoded = wire::decode(*frame, wire::Limits{1 << 20});
    REQUIRE(decoded);
    received.push_back(std::move(*decoded));
  }
  void close() override { closed = true; }
  std::string peer() const override { return "fake"; }

  template <class T>
  const T* last() const {
    return received.empty() ? nullptr : std::get_if<T>(&received.back());
  }

  std::weak_ptr<AggregationSession> session;
  std::optional<size_t> position;
  std::vector<wire::Message> received;
  bool closed = false;
};

struct Harness {
  explicit Harness(size_t parties, std::chrono::milliseconds round_timeout = std::chrono::seconds(30))
      : params{8, parties, mpc::session_label("00112233445566778899aabbccddeeff", 8, parties, "unit")} {
    SessionEnv env{&bp_gens, &pc_gens, &metrics, std::chrono::milliseconds(50),
                   [this](const SessionOutcome& o, auto done) {
                     recorded.push_back(o);
                     done(record_failure);
                   },
                   &dealer_key, [](const std::string&, const char*, size_t) {}};
    session = std::make_shared<AggregationSession>(ioc, "00112233445566778899aabbccddeeff", params,
                                                   std::vector<wire::PublicKey>{}, round_timeout, env);
    session->start();
    poll();
  }

  // What is ready now (no timer is waited for).
  void poll() {
    ioc.restart();
    ioc.poll();
  }
  // Until nothing is left, timers included: for the deadline cases.
  void run() {
    ioc.restart();
    ioc.run();
  }

  std::shared_ptr<FakeLink> join(std::vector<uint8_t> token = {}) {
    auto link = std::make_shared<FakeLink>();
    session->join(link, std::move(token), std::nullopt);
    poll();
    return link;
  }

  void deliver(const std::shared_ptr<FakeLink>& link, wire::Message m) {
    session->deliver(*link->position, link, std::move(m));
    poll();
  }

  boost::asio::io_context ioc;
  BulletproofGens bp_gens{8, 4};
  PedersenGens pc_gens;
  Metrics metrics;
  wire::Identity dealer_key = wire::Identity::generate();
  mpc::SessionParams params;
  std::vector<SessionOutcome> recorded;
  std::optional<std::string> record_failure;
  std::shared_ptr<AggregationSession> session;
};

// A real party at the position its link was given, answering every round.
struct Party {
  Party(Harness& h, const std::shared_ptr<FakeLink>& link, uint64_t value) {
    SystemRandom rng;
    auto start = mpc::PartyAwaitingPosition::create(h.bp_gens, h.pc_gens, h.params, value, Scalar::random(rng));
    REQUIRE(start);
    auto seated = std::move(*start).assign_position(*link->position);
    REQUIRE(seated);
    awaiting_bits.emplace(std::move(seated->first));
    commitment = seated->second;
  }
  std::optional<mpc::PartyAwaitingBitChallenge> awaiting_bits;
  std::optional<mpc::PartyAwaitingPolyChallenge> awaiting_poly;
  std::optional<mpc::PartyAwaitingResult> awaiting_result;
  BitCommitment commitment;
};

}  // namespace

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
  CHECK(h.recorded.empty());
  h.deliver(a, pa3->second);
  h.deliver(b, pb3->second);

  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].ok);
  for (auto* link : {a.get(), b.get()}) {
    auto* result = link->last<wire::ResultMsg>();
    REQUIRE(result);
    CHECK(wire::attestation_valid(*result));
    CHECK(result->attestation->dealer_key == h.dealer_key.public_key());
    CHECK(link->closed);
  }
  CHECK(pa3->first.check_result(a->last<wire::ResultMsg>()->result));
  CHECK(h.session->finished());
}

TEST_CASE("a message of the wrong round aborts the session and blames its sender") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1);
  h.deliver(b, wire::AbortMsg{"not a round message", {}});
  REQUIRE(h.recorded.size() == 1);
  CHECK_FALSE(h.recorded[0].ok);
  CHECK(h.recorded[0].blamed == std::vector<size_t>{1});
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
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].blamed == std::vector<size_t>{0});
  CHECK(b->last<wire::AbortMsg>()->reason == "a second, different message in one round");
}

TEST_CASE("the same message again (a resumed party's resend) is harmless") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1);
  h.deliver(a, pa.commitment);
  h.deliver(a, pa.commitment);
  CHECK(h.recorded.empty());
  CHECK_FALSE(b->last<wire::AbortMsg>());
}

TEST_CASE("a join deadline blames the seats nobody took") {
  Harness h(3, std::chrono::milliseconds(20));
  auto a = h.join();
  h.run();  // until the deadline fires
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].blamed == std::vector<size_t>{1, 2});
  CHECK(a->last<wire::AbortMsg>()->reason == "only 1 of 3 parties joined before the deadline");
}

TEST_CASE("a round deadline blames the parties that did not answer") {
  Harness h(2, std::chrono::milliseconds(20));
  auto a = h.join(), b = h.join();
  Party pa(h, a, 1);
  h.deliver(a, pa.commitment);
  h.run();
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].blamed == std::vector<size_t>{1});
  CHECK(a->last<wire::AbortMsg>()->reason == "round deadline passed in bit_commitments");
}

TEST_CASE("a seat is resumed with its token only, and a full session refuses newcomers") {
  Harness h(2);
  auto a = h.join(), b = h.join();
  h.session->disconnected(0, a);
  h.run();  // past the grace period: a party that does not come back is blamed
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].blamed == std::vector<size_t>{0});
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
  CHECK(h2.recorded.empty());
  // Back again before the session noticed the last connection drop: the token takes the seat over.
  auto again = std::make_shared<FakeLink>();
  h2.session->join(again, c_token, std::nullopt);
  h2.poll();
  REQUIRE(again->position == 0u);
  CHECK(back->closed);
  h2.session->disconnected(0, back);  // the old connection's late news changes nothing
  h2.poll();
  CHECK(h2.recorded.empty());
}

TEST_CASE("when the record fails, every party gets an abort that says so and no result") {
  Harness h(1);
  h.record_failure = "database or disk is full";
  auto a = h.join();
  Party pa(h, a, 9);
  h.deliver(a, pa.commitment);
  auto pa2 = std::move(*pa.awaiting_bits).apply_challenge(*a->last<mpc::BitChallengeMsg>());
  h.deliver(a, pa2->second);
  auto pa3 = std::move(pa2->first).apply_challenge(*a->last<mpc::PolyChallengeMsg>());
  h.deliver(a, pa3->second);
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].ok);  // the record was asked to keep a result...
  for (const auto& m : a->received) CHECK_FALSE(std::holds_alternative<wire::ResultMsg>(m));
  auto* abort = a->last<wire::AbortMsg>();
  REQUIRE(abort);  // ...and the party got none, only the reason
  CHECK(abort->reason == "outcome could not be recorded: database or disk is full");
  CHECK(a->closed);
}

TEST_CASE("shutdown aborts a running session with the reason given") {
  Harness h(2);
  auto a = h.join();
  h.session->shutdown(AbortKind::Shutdown, "dealer shutting down");
  h.poll();
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].reason == "dealer shutting down");
  CHECK(a->last<wire::AbortMsg>()->reason == "dealer shutting down");
  auto late = h.join();
  CHECK(late->last<wire::AbortMsg>()->reason == "the session has ended");
}
