#include "session/session.hpp"

#include <sodium.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "bp/wire/auth.hpp"
#include "observability/log.hpp"
#include "session/inbox.hpp"
#include "session/refusals.hpp"

namespace bp::server {

namespace asio = boost::asio;

std::shared_ptr<const std::vector<uint8_t>> frame_of(const wire::Message& m) {
  return std::make_shared<const std::vector<uint8_t>>(wire::encode(m));
}

AggregationSession::AggregationSession(asio::io_context& ioc, SessionTerms terms, wire::DealerCheckpoint checkpoint,
                                       uint64_t epoch, SessionEnv env)
    : strand_(asio::make_strand(ioc)),
      terms_(std::move(terms)),
      params_(terms_.params),
      env_(std::move(env)),
      epoch_(epoch),
      restored_(std::move(checkpoint)),
      party_count_(terms_.seat_shapes().size()),
      lists_parties_(!terms_.allowed.empty()),
      deadline_(strand_),
      retry_(strand_),
      kind_(make_session_kind(terms_, env_)) {}

wire::SessionSummary AggregationSession::summary() const {
  return {id(), params_.bits, party_count_, public_joined_.load(), phase_name(public_phase_.load()), {}};
}

AggregationSession::Phase AggregationSession::phase() const {
  if (!std::holds_alternative<std::monostate>(stage_)) return Phase::Done;
  if (gathering()) return Phase::Joining;
  return kind_->phase(seats_taken() == seats_.size());
}

void AggregationSession::publish_progress() {
  public_phase_ = phase();
  public_joined_ = seats_taken();
}

const char* AggregationSession::phase_name(Phase p) {
  switch (p) {
    case Phase::Joining: return "join";
    case Phase::BitCommitments: return "bit_commitments";
    case Phase::PolyCommitments: return "poly_commitments";
    case Phase::ProofShares: return "proof_shares";
    case Phase::Done: return "done";
    case Phase::FirstPhases: return "first_phase";
    case Phase::SecondPhases: return "second_phase";
  }
  return "?";
}

void AggregationSession::start() {
  asio::post(strand_, [self = shared_from_this()] { self->rebuild(); });
}

// The dealer from the checkpoint: made afresh, then fed each round it decided, the same
// messages, so the challenges come out as they did before.
void AggregationSession::rebuild() {
  const auto shapes = terms_.seat_shapes();
  seats_.resize(shapes.size());
  seat_of_position_.assign(params_.positions, 0);
  for (size_t j = 0; j < seats_.size(); ++j) {
    seats_[j].shape = shapes[j];
    for (size_t p = 0; p < shapes[j].positions; ++p) seat_of_position_[shapes[j].first_position + p] = j;
    if (j >= restored_.seats.size()) continue;
    seats_[j].taken = restored_.seats[j].taken;
    seats_[j].token_hash = restored_.seats[j].token_hash;
    seats_[j].peer = restored_.seats[j].peer;
  }
  inbox_.assign(params_.positions, std::nullopt);
  auto replayed = kind_->replay(restored_);
  restored_ = {};
  if (auto* cannot = std::get_if<SessionKind::Abort>(&replayed)) return abort(cannot->kind, cannot->why, {});
  if (auto* why = std::get_if<std::string>(&replayed))
    return abort(AbortKind::Internal, "the checkpoint does not replay: " + *why, {});
  auto& rounds = std::get<SessionKind::Replayed>(replayed);
  last_broadcast_ = std::move(rounds.last_broadcast);
  last_accepted_ = std::move(rounds.last_accepted);
  publish_progress();
  if (epoch_ == kFirstEpoch) {
    env_.metrics->session_started();
    log::info("session created", {{"session", id()},
                                  {"bits", params_.bits},
                                  {"parties", seats_.size()},
                                  {"positions", params_.positions},
                                  {"round_timeout_ms", terms_.round_timeout.count()}});
  } else {
    env_.metrics->session_taken_over();
    log::info("session taken over",
              {{"session", id()}, {"epoch", epoch_}, {"phase", phase_name(phase())}, {"joined", seats_taken()}});
  }
  // Every round starts with a full deadline here, a rebuilt one too: its parties are on
  // their way back.
  start_round();
}

void AggregationSession::join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token,
                              std::optional<wire::PublicKey> party_key, std::vector<uint8_t> seat_token,
                              PartyStatement statement) {
  asio::post(strand_, [self = shared_from_this(), link = std::move(link), token = std::move(token), party_key,
                       seat_token = std::move(seat_token), statement = std::move(statement)]() mutable {
    self->on_join(std::move(link), std::move(token), party_key, std::move(seat_token), statement);
  });
}

void AggregationSession::deliver(size_t seat, std::shared_ptr<PartyLink> link, wire::Message message) {
  asio::post(strand_, [self = shared_from_this(), seat, link = std::move(link), m = std::move(message)]() mutable {
    self->on_deliver(seat, link, std::move(m));
  });
}

void AggregationSession::misbehaved(size_t seat, std::shared_ptr<PartyLink> link, std::string reason) {
  asio::post(strand_, [self = shared_from_this(), seat, link = std::move(link), reason = std::move(reason)] {
    if (self->phase() == Phase::Done || !self->from_seat(seat, link)) return;
    if (self->gathering()) return self->free_seat(seat, "the party broke the protocol before the set was fixed");
    log::warn("party misbehaved",
              {{"session", self->id()}, {"position", self->seats_[seat].shape.first_position}, {"reason", reason}});
    self->abort(AbortKind::ProtocolViolation, reason, self->blame_of_seat(seat));
  });
}

void AggregationSession::disconnected(size_t seat_index, std::shared_ptr<PartyLink> link) {
  asio::post(strand_, [self = shared_from_this(), seat_index, link = std::move(link)] {
    if (self->phase() == Phase::Done || !self->from_seat(seat_index, link)) return;
    Seat& seat = self->seats_[seat_index];
    seat.link.reset();
    self->env_.metrics->party_left();
    log::info("party disconnected; seat held", {{"session", self->id()},
                                                {"position", seat.shape.first_position},
                                                {"grace_ms", self->env_.reconnect_grace.count()}});
    // The seat waits a short grace period for the same party (resume token) to come back.
    seat.grace = std::make_unique<asio::steady_timer>(self->strand_, self->env_.reconnect_grace);
    seat.grace->async_wait([self, seat_index](boost::system::error_code ec) {
      if (ec || self->phase() == Phase::Done || self->seats_[seat_index].link) return;
      if (self->gathering()) return self->free_seat(seat_index, "the party left before the set was fixed");
      self->abort(AbortKind::PartyLeft, "party disconnected", self->blame_of_seat(seat_index));
    });
  });
}

void AggregationSession::shutdown(AbortKind kind, std::string reason) {
  asio::post(strand_, [self = shared_from_this(), kind, reason = std::move(reason)] {
    if (self->phase() != Phase::Done) self->abort(kind, reason, {});
  });
}

void AggregationSession::start_round() {
  // Bit commitments may arrive while others are still joining; later rounds start empty.
  const Phase now = phase();
  if (now != Phase::BitCommitments && now != Phase::FirstPhases && now != Phase::Joining)
    inbox_.assign(params_.positions, std::nullopt);
  round_open_ = now;
  publish_progress();
  round_started_ = std::chrono::steady_clock::now();
  stall_forgiven_ = false;
  arm_deadline();
}

void AggregationSession::arm_deadline() {
  auto period = phase() == Phase::Joining ? terms_.joining_time() : terms_.round_timeout;
  // A quorum session taken over before its set was fixed: its parties were told to join
  // again and come back through the failover, which the window does not charge them for.
  if (gathering() && epoch_ != kFirstEpoch) period += env_.reconnect_grace;
  deadline_.expires_after(period);
  deadline_.async_wait(
      [self = shared_from_this(), armed_in = phase(), due = deadline_.expiry()](boost::system::error_code ec) {
        if (ec || self->phase() != armed_in) return;
        // Fired long after it was due: this process was stopped (paused, starved) while its
        // parties may have been trying to reach it. Nobody is blamed for a silence this dealer
        // was not there to hear: the round gets its time once more (once), in which the record
        // also says whether the session is still ours.
        const auto late = std::chrono::steady_clock::now() - due;
        if (late > kStalledAfter && !self->stall_forgiven_) {
          self->stall_forgiven_ = true;
          log::warn("a deadline fired late: this dealer was stalled; its parties get the time again",
                    {{"session", self->id()},
                     {"phase", phase_name(armed_in)},
                     {"late_ms", std::chrono::duration_cast<std::chrono::milliseconds>(late).count()}});
          return self->arm_deadline();
        }
        self->on_deadline();
      });
}

void AggregationSession::on_deadline() {
  std::vector<size_t> late;
  const Phase now = phase();
  if (gathering()) return window_ended();
  if (now == Phase::Joining) {
    // The seats nobody took are to blame: in a keyed session each is one named party's.
    for (size_t j = 0; j < seats_.size(); ++j)
      if (!seats_[j].taken)
        for (size_t p : blame_of_seat(j)) late.push_back(p);
    abort(AbortKind::JoinTimeout,
          "only " + std::to_string(seats_taken()) + " of " + std::to_string(seats_.size()) +
              " parties joined before the deadline",
          std::move(late));
    return;
  }
  for (size_t j = 0; j < inbox_.size(); ++j)
    if (!inbox_[j]) late.push_back(j);
  abort(AbortKind::RoundTimeout, std::string("round deadline passed in ") + phase_name(now), blame_of_positions(late));
}

namespace {

// A party's message of one round as one item per position (a 1.3 party's single message is
// one item), with the round it belongs to: 1, 2 or 3 in a range session, 4 to 7 (its one
// item) in a gadget session; 0 for anything else.
struct RoundItems {
  int round = 0;
  std::vector<wire::Message> items;
};
RoundItems round_items(wire::Message message) {
  RoundItems out;
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, BitCommitment>) out = {1, {wire::Message{m}}};
        if constexpr (std::is_same_v<T, PolyCommitment>) out = {2, {wire::Message{m}}};
        if constexpr (std::is_same_v<T, ProofShare>) out = {3, {wire::Message{std::move(m)}}};
        if constexpr (std::is_same_v<T, R1CSFirstPhaseShare>) out = {4, {wire::Message{std::move(m)}}};
        if constexpr (std::is_same_v<T, R1CSSecondPhaseShare>) out = {5, {wire::Message{m}}};
        if constexpr (std::is_same_v<T, R1CSPolyShare>) out = {6, {wire::Message{m}}};
        if constexpr (std::is_same_v<T, R1CSProofShare>) out = {7, {wire::Message{std::move(m)}}};
        if constexpr (std::is_same_v<T, wire::BitCommitments> || std::is_same_v<T, wire::PolyCommitments> ||
                      std::is_same_v<T, wire::ProofShares>) {
          out.round = std::is_same_v<T, wire::BitCommitments> ? 1 : std::is_same_v<T, wire::PolyCommitments> ? 2 : 3;
          for (auto& item : m.items) out.items.emplace_back(std::move(item));
        }
      },
      message);
  return out;
}

}  // namespace

void AggregationSession::on_deliver(size_t seat, const std::shared_ptr<PartyLink>& link, wire::Message message) {
  const Phase now = phase();
  if (now == Phase::Done || !from_seat(seat, link)) return;
  if (gathering())  // it has no positions yet, so it has nothing to send but a withdrawal
    return free_seat(seat, std::holds_alternative<wire::AbortMsg>(message)
                               ? "the party withdrew before the set was fixed"
                               : "a round's message before the set was fixed");
  const SeatShape& shape = seats_[seat].shape;
  if (auto* withdrawn = std::get_if<wire::AbortMsg>(&message)) {
    // The party's own words stay in this log: the record, /v1/sessions and the other parties
    // hear only the kind, so that no reason a party gives can carry anything about its values.
    log::info("party withdrew",
              {{"session", id()}, {"position", shape.first_position}, {"reason", withdrawn->reason.substr(0, 200)}});
    return abort(AbortKind::Withdrawn, refusal::kPartyWithdrew, blame_of_seat(seat));
  }
  auto round = round_items(std::move(message));
  const int expected_round = kind_->round_of(now);
  // A party that resumed its seat may repeat the last message it sent, even after its round
  // has closed (it cannot know whether the message arrived); the same items are harmless.
  if (round.round != 0 && round.items.size() == shape.positions) {
    const auto bytes = round.round == 1   ? canonical<BitCommitment>(round.items)
                       : round.round == 2 ? canonical<PolyCommitment>(round.items)
                       : round.round == 3 ? canonical<ProofShare>(round.items)
                                          : wire::encode(round.items.front());
    if (bytes == last_accepted_[seat]) return;
    if (round.round == expected_round)
      if (auto why = kind_->message_misfit(shape, round.items.front()))
        return abort(AbortKind::InvalidShares, *why, blame_of_seat(seat));
    if (round.round == expected_round) {
      if (inbox_[shape.first_position])
        return abort(AbortKind::ProtocolViolation, "a second, different message in one round", blame_of_seat(seat));
      for (size_t p = 0; p < shape.positions; ++p) inbox_[shape.first_position + p] = std::move(round.items[p]);
      last_accepted_[seat] = bytes;
      // The round starts once every seat is taken and the record holds them.
      if (now == Phase::Joining || round_open_ != now) return;
      for (const auto& m : inbox_)
        if (!m) return;
      return complete_round();
    }
  }
  if (round.round == expected_round)
    return abort(AbortKind::ProtocolViolation,
                 "the party sent " + std::to_string(round.items.size()) + " messages for its " +
                     std::to_string(shape.positions) + " positions in " + phase_name(now),
                 blame_of_seat(seat));
  abort(AbortKind::ProtocolViolation, std::string("out-of-order message during ") + phase_name(now),
        blame_of_seat(seat));
}

void AggregationSession::complete_round() {
  const Phase completed = phase();
  env_.metrics->round_latency(phase_name(completed),
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count());
  act_on(kind_->complete(completed, inbox_));
}

void AggregationSession::act_on(SessionKind::Decision decision) {
  if (auto* refused = std::get_if<SessionKind::Abort>(&decision)) return abort_as(std::move(*refused));
  if (auto* next = std::get_if<SessionKind::NextRound>(&decision))
    return next_round_once_recorded(std::move(next->broadcast));
  check_proof();
}

void AggregationSession::abort_as(SessionKind::Abort refused) {
  abort(refused.kind, refused.why, blame_of_positions(refused.blamed));
}

// Every share is in: nothing a party sends counts while the proof is checked, and the
// deadline stops (the check, not a late party, decides now).
void AggregationSession::check_proof() {
  stage_ = Checking{};
  deadline_.cancel();
  const bool off_strand = env_.checker != nullptr;
  kind_->check(env_.checker, [self = shared_from_this(), off_strand](std::optional<SessionKind::Abort> failed) {
    if (!off_strand) return self->checked(std::move(failed));
    asio::post(self->strand_, [self, failed = std::move(failed)]() mutable { self->checked(std::move(failed)); });
  });
}

void AggregationSession::checked(std::optional<SessionKind::Abort> failed) {
  // Moved on meanwhile (lost its lease, taken over): the replica that has it now finishes it.
  if (std::holds_alternative<Moved>(stage_) || std::holds_alternative<Ended>(stage_)) return;
  if (failed) return abort_as(std::move(*failed));
  finish_ok(kind_->sign(*env_.dealer_key, id(), seats_.size()));
}

void AggregationSession::finish_ok(SessionKind::Signed signed_result) {
  signed_result.outcome.listed_parties = terms_.listed_parties;
  signed_result.outcome.not_joined = terms_.not_joined;
  signed_result.outcome.predecessor = terms_.follows;
  record_then(std::move(signed_result.outcome),
              [this, frame = std::move(signed_result.frame), proof_bytes = signed_result.proof_bytes,
               proves = std::move(signed_result.proves)] {
                env_.metrics->session_completed();
                log::info("session completed", {{"session", id()},
                                                {"proves", proves},
                                                {"proof_bytes", proof_bytes},
                                                {"parties", seats_.size()},
                                                {"positions", params_.positions},
                                                {"epoch", epoch_}});
                broadcast(frame);
                answer_late_joiners(last_broadcast_);
                close_all();
              });
}

void AggregationSession::next_round_once_recorded(Frame frame) {
  inbox_.assign(params_.positions, std::nullopt);
  persist_then([this, frame = std::move(frame)] {
    start_round();
    broadcast(frame);
  });
}

void AggregationSession::broadcast(Frame frame) {
  last_broadcast_ = std::move(frame);
  for (auto& seat : seats_)
    if (seat.link) seat.link->send(last_broadcast_);
}

void AggregationSession::abort(AbortKind kind, const std::string& reason, std::vector<size_t> blamed) {
  if (phase() == Phase::Done && !std::holds_alternative<Checking>(stage_)) return;  // a check's verdict still counts
  if (start_successor(kind, reason, blamed)) return;  // it ends once the record holds its successor
  end_aborted(kind, reason, std::move(blamed), {});
}

void AggregationSession::end_aborted(AbortKind kind, const std::string& reason, std::vector<size_t> blamed,
                                     std::string successor) {
  auto outcome = SessionOutcome{id(), params_, false, reason, blamed, std::nullopt, seats_.size()};
  outcome.listed_parties = terms_.listed_parties;
  outcome.not_joined = terms_.not_joined;
  outcome.successor = successor;
  outcome.predecessor = terms_.follows;
  // A successor that ends without one of its own: its chain ended without a proof.
  const bool chain_failed = successor.empty() && !terms_.follows.empty();
  record_then(std::move(outcome), [this, kind, reason, blamed = std::move(blamed), successor, chain_failed] {
    ended_reason_ = reason;
    ended_blamed_ = blamed;
    env_.metrics->session_aborted(kind);
    if (chain_failed) env_.metrics->chain_failed();
    log::warn("session aborted",
              {{"session", id()}, {"kind", abort_kind_label(kind)}, {"reason", reason}, {"blamed", blamed}});
    if (!successor.empty())
      log::info("successor session goes on", {{"session", id()}, {"successor", successor}, {"excluded", blamed}});
    // A party before 1.7 drops the successor field: the reason tells it (and its caller) plainly.
    const std::string told = successor.empty()
                                 ? reason
                                 : reason.substr(0, 800) + " (the parties not blamed go on in successor session " +
                                       successor + ", which a party before wire 1.7 cannot follow)";
    broadcast(frame_of(wire::AbortMsg{told, blamed, 0, wire::RefusalKind::None, successor}));
    answer_late_joiners(last_broadcast_);
    close_all();
  });
}

void AggregationSession::answer_late_joiners(const Frame& announced) {
  const bool aborted = ended_reason_.has_value();
  for (auto& late : late_joiners_) {
    // A stranger is not handed a signed result; an abort's reason and culprits are public.
    if (aborted || late.resuming)
      late.link->send(announced);
    else
      late.link->send(frame_of(wire::AbortMsg{refusal::kSessionEnded, {}}));
    late.link->close();
  }
  late_joiners_.clear();
}

void AggregationSession::close_all() {
  for (auto& seat : seats_) {
    seat.grace.reset();
    if (seat.link) {
      seat.link->close();
      seat.link.reset();
      env_.metrics->party_left();
    }
  }
}

}  // namespace bp::server
