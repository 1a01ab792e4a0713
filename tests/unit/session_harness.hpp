// What the session tests share: a party's connection and the record as a session sees
// them (fakes that keep what they are given), and a harness that runs one session on one
// io_context to quiescence. Real mpc parties answer through it.
#pragma once

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>

#include "bp/mpc/party.hpp"
#include "bp/random.hpp"
#include "bp/wire/auth.hpp"
#include "session/session.hpp"

namespace bp::server::testing {

using namespace bp;

[[maybe_unused]] const bool kQuiet = (spdlog::set_level(spdlog::level::off), true);  // the session logs every step

// A party's connection as the session sees it: what it was sent, whether it was closed.
class FakeLink final : public PartyLink {
 public:
  void seated(std::weak_ptr<AggregationSession> session, size_t seat, size_t positions) override {
    this->session = std::move(session);
    this->position = seat;
    this->positions = positions;
  }
  void send(std::shared_ptr<const std::vector<uint8_t>> frame) override {
    auto decoded = wire::decode(*frame, wire::Limits{1 << 20});
    REQUIRE(decoded);
    if (std::holds_alternative<wire::ResultMsg>(*decoded)) {
      const auto s = session.lock();
      session_finished_at_result = s && s->finished();
    }
    received.push_back(std::move(*decoded));
  }
  void close() override { closed = true; }
  std::string peer() const override { return "fake"; }

  template <class T>
  const T* last() const {
    return received.empty() ? nullptr : std::get_if<T>(&received.back());
  }

  std::weak_ptr<AggregationSession> session;
  std::optional<size_t> position;  // the seat
  size_t positions = 0;
  std::vector<wire::Message> received;
  bool closed = false;
  // Whether the session already said it was finished (the registry may answer from the
  // record) when it sent this party the result: a party may join again the moment it has it.
  bool session_finished_at_result = false;
};

// The record as a session sees it: what was written, and the answers the test chooses.
class FakeRecord final : public SessionRecord {
 public:
  void checkpoint(Checkpoint c, std::function<void(RecordResult<Ok>)> done) override {
    checkpoints.push_back(c);
    answer(std::move(done));
  }
  void close(const SessionOutcome& outcome, uint64_t, std::function<void(RecordResult<Ok>)> done) override {
    recorded.push_back(outcome);
    answer(std::move(done));
  }
  void release(const std::string&, uint64_t, std::function<void(RecordResult<Ok>)> done) override {
    ++releases;
    done(Ok{});
  }

  // The latest checkpoint, decoded.
  wire::DealerCheckpoint last() const {
    REQUIRE_FALSE(checkpoints.empty());
    auto decoded = wire::decode_checkpoint(checkpoints.back().bytes);
    REQUIRE(decoded);
    return *decoded;
  }

  std::vector<Checkpoint> checkpoints;
  std::vector<SessionOutcome> recorded;
  int releases = 0;
  std::optional<RecordError> failure;  // every write fails so, while set
  int failures_left = -1;              // >= 0: that many failures, then success
  bool hold = false;                   // answers wait in `held` until released by the test
  std::vector<std::function<void()>> held;

 private:
  void answer(std::function<void(RecordResult<Ok>)> done) {
    auto reply = [this, done = std::move(done)] {
      if (failure && failures_left != 0) {
        if (failures_left > 0) --failures_left;
        return done(*failure);
      }
      done(Ok{});
    };
    if (hold)
      held.push_back(std::move(reply));
    else
      reply();
  }
};

const std::string kSessionId = "00112233445566778899aabbccddeeff";

struct Harness {
  explicit Harness(size_t parties, std::chrono::milliseconds round_timeout = std::chrono::seconds(30),
                   std::optional<wire::DealerCheckpoint> from = std::nullopt, uint64_t epoch = kFirstEpoch)
      : params{8, parties, mpc::session_label(kSessionId, 8, parties, "unit")} {
    start(SessionTerms{kSessionId, params, {}, round_timeout, {}}, std::move(from), epoch);
  }
  // A session whose final proof goes to `checker` (which runs on an io_context of its own).
  Harness(size_t parties, ProofChecker& checker)
      : params{8, parties, mpc::session_label(kSessionId, 8, parties, "unit")}, checker(&checker) {
    start(SessionTerms{kSessionId, params, {}, std::chrono::seconds(30), {}}, std::nullopt, kFirstEpoch);
  }
  // A session of several values per party and (if given) bounds on each, n = 8.
  struct Shape {
    std::vector<uint32_t> values_per_party;
    std::vector<ValueBounds> bounds;
  };
  explicit Harness(const Shape& shape, std::optional<wire::DealerCheckpoint> from = std::nullopt,
                   uint64_t epoch = kFirstEpoch) {
    const auto& [values_per_party, bounds] = shape;
    const auto positions = positions_of(8, values_per_party.size(), values_per_party, bounds, 8);
    REQUIRE(positions);
    params =
        mpc::SessionParams{8, *positions, mpc::session_transcript_label(kSessionId, 8, *positions, "unit", bounds)};
    start(SessionTerms{kSessionId, params, {}, std::chrono::seconds(30), {}, values_per_party, bounds}, std::move(from),
          epoch);
  }

  // A quorum session (1.7): `parties` listed, one value each, at least `min_parties` of them
  // once `window` ends.
  // `successors`: the session may start successors (kept in `successors`, claimed at once).
  struct Quorum {
    size_t parties;
    uint32_t min_parties;
    std::chrono::milliseconds window;
    bool successors = false;
    std::chrono::milliseconds round_timeout = std::chrono::seconds(30);
  };
  explicit Harness(const Quorum& quorum, std::optional<wire::DealerCheckpoint> from = std::nullopt,
                   uint64_t epoch = kFirstEpoch)
      : params{8, quorum.parties, mpc::session_label(kSessionId, 8, quorum.parties, "unit")},
        allow_successors(quorum.successors) {
    SessionTerms terms{kSessionId, params, {}, quorum.round_timeout, {}};
    terms.min_parties = quorum.min_parties;
    terms.join_window = quorum.window;
    start(terms, std::move(from), epoch);
  }
  // A successor a session started, as its own session.
  Harness(const SessionTerms& terms, const wire::DealerCheckpoint& from) : params(terms.params) {
    start(terms, from, kFirstEpoch);
  }

  void start(const SessionTerms& terms, std::optional<wire::DealerCheckpoint> from, uint64_t epoch) {
    SessionEnv env{&bp_gens, &pc_gens,    &metrics, std::chrono::milliseconds(50), std::chrono::milliseconds(100),
                   &record,  &dealer_key, checker};
    if (allow_successors)
      env.start_successor = [this](SessionTerms next, wire::DealerCheckpoint checkpoint,
                                   std::function<void(bool)> done) {
        successors.emplace_back(std::move(next), std::move(checkpoint));
        done(true);
      };
    session = std::make_shared<AggregationSession>(ioc, terms, from ? *from : first_checkpoint(terms), epoch, env);
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
  // Timers due within `span` too (a retry), but not the session's deadlines.
  void run_for(std::chrono::milliseconds span) {
    ioc.restart();
    ioc.run_for(span);
  }

  // `values`: what a 1.4 party says it brings (0: a party before 1.4).
  // `seat_token`: the token a 1.3 party picks for a new seat.
  std::shared_ptr<FakeLink> join(std::vector<uint8_t> token = {}, uint32_t values = 0,
                                 std::vector<uint8_t> seat_token = {}) {
    auto link = std::make_shared<FakeLink>();
    session->join(link, std::move(token), std::nullopt, std::move(seat_token),
                  PartyStatement{values, false, std::nullopt});
    poll();
    return link;
  }

  void deliver(const std::shared_ptr<FakeLink>& link, wire::Message m) {
    session->deliver(*link->position, link, std::move(m));
    poll();
  }

  std::vector<SessionOutcome>& recorded() { return record.recorded; }

  boost::asio::io_context ioc;
  BulletproofGens bp_gens{8, 8};
  PedersenGens pc_gens;
  Metrics metrics;
  wire::Identity dealer_key = wire::Identity::generate();
  mpc::SessionParams params;
  FakeRecord record;
  ProofChecker* checker = nullptr;  // none: the session checks its proof on its strand
  bool allow_successors = false;
  std::vector<std::pair<SessionTerms, wire::DealerCheckpoint>> successors;
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

}  // namespace bp::server::testing
