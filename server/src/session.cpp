#include "session.hpp"

#include "bp/wire/auth.hpp"
#include "bp/json.hpp"

#include <sodium.h>
#include "log.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace bp::server {

namespace asio = boost::asio;

namespace {

std::shared_ptr<const std::vector<uint8_t>> frame_of(const wire::Message& m) {
  return std::make_shared<const std::vector<uint8_t>>(wire::encode(m));
}

template <class T>
std::vector<T> collect(std::vector<std::optional<wire::Message>>& inbox) {
  std::vector<T> out;
  out.reserve(inbox.size());
  for (auto& m : inbox) out.push_back(std::get<T>(std::move(*m)));
  return out;
}

}  // namespace

AggregationSession::AggregationSession(asio::io_context& ioc, std::string id, mpc::SessionParams params,
                                       std::vector<wire::PublicKey> allowed, std::chrono::milliseconds round_timeout,
                                       SessionEnv env, SessionOwner owner)
    : strand_(asio::make_strand(ioc)),
      id_(std::move(id)),
      params_(std::move(params)),
      allowed_(std::move(allowed)),
      round_timeout_(round_timeout),
      env_(std::move(env)),
      deadline_(strand_),
      owner_(std::move(owner)) {}

wire::SessionSummary AggregationSession::summary() const {
  return {id_, params_.n, params_.parties, public_joined_.load(), phase_name(public_phase_.load()), {}};
}

AggregationSession::Phase AggregationSession::phase() const {
  if (std::holds_alternative<mpc::DealerAwaitingBitCommitments>(dealer_))
    return seats_taken() < params_.parties ? Phase::Joining : Phase::BitCommitments;
  if (std::holds_alternative<mpc::DealerAwaitingPolyCommitments>(dealer_)) return Phase::PolyCommitments;
  if (std::holds_alternative<mpc::DealerAwaitingProofShares>(dealer_)) return Phase::ProofShares;
  if (std::holds_alternative<Ended>(dealer_)) return Phase::Done;
  return Phase::Joining;  // not started yet
}

void AggregationSession::publish_progress() {
  public_phase_ = phase();
  public_joined_ = seats_taken();
  if (env_.progressed) env_.progressed(id_, phase_name(public_phase_.load()), public_joined_.load());
}

void AggregationSession::record_then(SessionOutcome outcome, std::function<void()> announce) {
  dealer_ = Ended{};  // nothing a party sends counts any more
  publish_progress();
  deadline_.cancel();
  for (auto& seat : seats_) seat.grace.reset();
  env_.record(outcome, [self = shared_from_this(), announce = std::move(announce)](std::optional<std::string> failure) {
    asio::post(self->strand_, [self, announce, failure = std::move(failure)] {
      if (failure) {
        // Nobody is handed what the record does not hold.
        self->env_.metrics->outcome_unrecorded();
        self->env_.metrics->session_aborted(AbortKind::Unrecorded);
        log::error("outcome could not be recorded", {{"session", self->id_}, {"reason", *failure}});
        self->broadcast(wire::AbortMsg{"outcome could not be recorded: " + *failure, {}});
        self->close_all();
      } else {
        announce();
      }
      self->finished_flag_ = true;  // only now may the registry forget the id
    });
  });
}

const char* AggregationSession::phase_name(Phase p) {
  switch (p) {
    case Phase::Joining: return "join";
    case Phase::BitCommitments: return "bit_commitments";
    case Phase::PolyCommitments: return "poly_commitments";
    case Phase::ProofShares: return "proof_shares";
    case Phase::Done: return "done";
  }
  return "?";
}

void AggregationSession::start() {
  asio::post(strand_, [self = shared_from_this()] {
    auto dealer = mpc::DealerAwaitingBitCommitments::create(*self->env_.bp_gens, *self->env_.pc_gens, self->params_);
    if (!dealer) {
      self->abort(AbortKind::Internal, mpc::describe(dealer.error()), {});
      return;
    }
    self->dealer_ = std::move(*dealer);
    self->env_.metrics->session_started();
    log::info("session created", {{"session", self->id_},
                                  {"n", self->params_.n},
                                  {"parties", self->params_.parties},
                                  {"round_timeout_ms", self->round_timeout_.count()}});
    self->round_started_ = std::chrono::steady_clock::now();
    self->inbox_.assign(self->params_.parties, std::nullopt);
    self->last_accepted_.assign(self->params_.parties, {});
    self->seats_.resize(self->params_.parties);
    self->arm_deadline();
  });
}

void AggregationSession::join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token,
                              std::optional<wire::PublicKey> party_key) {
  asio::post(strand_, [self = shared_from_this(), link = std::move(link), token = std::move(token), party_key]() mutable {
    self->on_join(std::move(link), std::move(token), party_key);
  });
}

void AggregationSession::deliver(size_t position, std::shared_ptr<PartyLink> link, wire::Message message) {
  asio::post(strand_, [self = shared_from_this(), position, link = std::move(link), m = std::move(message)]() mutable {
    self->on_deliver(position, link, std::move(m));
  });
}

void AggregationSession::misbehaved(size_t position, std::shared_ptr<PartyLink> link, std::string reason) {
  asio::post(strand_, [self = shared_from_this(), position, link = std::move(link), reason = std::move(reason)] {
    if (self->phase() == Phase::Done || !self->from_seat(position, link)) return;
    log::warn("party misbehaved", {{"session", self->id_}, {"position", position}, {"reason", reason}});
    self->abort(AbortKind::ProtocolViolation, reason, {position});
  });
}

void AggregationSession::disconnected(size_t position, std::shared_ptr<PartyLink> link) {
  asio::post(strand_, [self = shared_from_this(), position, link = std::move(link)] {
    if (self->phase() == Phase::Done || !self->from_seat(position, link)) return;
    Seat& seat = self->seats_[position];
    seat.link.reset();
    self->env_.metrics->party_left();
    log::info("party disconnected; seat held", {{"session", self->id_},
                                               {"position", position},
                                               {"grace_ms", self->env_.reconnect_grace.count()}});
    // The seat waits a short grace period for the same party (resume token) to come back.
    seat.grace = std::make_unique<asio::steady_timer>(self->strand_, self->env_.reconnect_grace);
    seat.grace->async_wait([self, position](boost::system::error_code ec) {
      if (ec || self->phase() == Phase::Done || self->seats_[position].link) return;
      self->abort(AbortKind::PartyLeft, "party disconnected", {position});
    });
  });
}

void AggregationSession::shutdown(AbortKind kind, std::string reason) {
  asio::post(strand_, [self = shared_from_this(), kind, reason = std::move(reason)] {
    if (self->phase() != Phase::Done) self->abort(kind, reason, {});
  });
}

bool AggregationSession::from_seat(size_t position, const std::shared_ptr<PartyLink>& link) const {
  return position < seats_.size() && seats_[position].link == link;
}

size_t AggregationSession::seats_taken() const {
  return static_cast<size_t>(std::count_if(seats_.begin(), seats_.end(), [](const Seat& s) { return s.taken; }));
}

void AggregationSession::resume_seat(size_t position, const std::shared_ptr<PartyLink>& link) {
  Seat& seat = seats_[position];
  seat.link = link;
  seat.grace.reset();
  env_.metrics->party_joined();
  link->seated(weak_from_this(), position);
  link->send(frame_of(wire::JoinedMsg{position, params_.n, params_.parties, params_.label, seat.token}));
  if (last_broadcast_) link->send(last_broadcast_);
  log::info("party resumed its seat", {{"session", id_}, {"position", position}});
}

void AggregationSession::on_join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token,
                                 std::optional<wire::PublicKey> key) {
  auto refuse = [&](const std::string& why) {
    log::warn("join refused", {{"session", id_}, {"remote", link->peer()}, {"reason", why}});
    link->send(frame_of(wire::AbortMsg{why, {}}));
    link->close();
  };
  if (phase() == Phase::Done) return refuse("the session has ended");

  // Which seat: the key's own position in an allow-list session, else any vacant seat that
  // the resume token opens, else the first free one.
  std::optional<size_t> position;
  if (!allowed_.empty()) {
    if (!key) return refuse("this session admits only the parties it lists: sign the join with your key");
    const auto it = std::find(allowed_.begin(), allowed_.end(), *key);
    if (it == allowed_.end()) return refuse("this key is not allowed in the session");
    position = static_cast<size_t>(it - allowed_.begin());
  }
  if (!token.empty()) {
    for (size_t j = 0; j < seats_.size(); ++j) {
      if (position && j != *position) continue;  // a token never opens another key's seat
      Seat& seat = seats_[j];
      if (!seat.taken || sodium_memcmp(seat.token.data(), token.data(), token.size()) != 0) continue;
      if (seat.link) {
        // The party is back before its old connection was seen to drop (they are on
        // different strands): the token holder takes the seat, the old link is let go.
        seat.link->close();
        seat.link.reset();
        env_.metrics->party_left();
      }
      return resume_seat(j, link);
    }
    return refuse("no vacant seat for this resume token");
  }
  if (phase() != Phase::Joining) return refuse("the session is full");
  if (position) {
    if (seats_[*position].taken) return refuse("this party has joined already (resume with its token)");
  } else {
    const auto free = std::find_if(seats_.begin(), seats_.end(), [](const Seat& s) { return !s.taken; });
    if (free == seats_.end()) return refuse("the session is full");
    position = static_cast<size_t>(free - seats_.begin());
  }

  Seat& seat = seats_[*position];
  seat.taken = true;
  seat.link = link;
  seat.peer = link->peer();
  seat.token.resize(wire::kResumeTokenBytes);
  randombytes_buf(seat.token.data(), seat.token.size());
  publish_progress();
  env_.metrics->party_joined();
  link->seated(weak_from_this(), *position);
  link->send(frame_of(wire::JoinedMsg{*position, params_.n, params_.parties, params_.label, seat.token}));
  log::info("party joined", {{"session", id_},
                             {"position", *position},
                             {"remote", seat.peer},
                             {"party_key", key ? wire::public_key_hex(*key) : std::string("anonymous")}});
  if (phase() == Phase::BitCommitments) {  // every seat is taken
    start_round();
    // Parties commit as soon as they are seated; the last one may complete the round.
    if (std::all_of(inbox_.begin(), inbox_.end(), [](const auto& m) { return m.has_value(); })) complete_round();
  }
}

void AggregationSession::start_round() {
  // Bit commitments may arrive while others are still joining; later rounds start empty.
  if (phase() != Phase::BitCommitments) inbox_.assign(params_.parties, std::nullopt);
  publish_progress();
  round_started_ = std::chrono::steady_clock::now();
  arm_deadline();
}

void AggregationSession::arm_deadline() {
  deadline_.expires_after(round_timeout_);
  deadline_.async_wait([self = shared_from_this(), armed_in = phase()](boost::system::error_code ec) {
    if (!ec && self->phase() == armed_in) self->on_deadline();
  });
}

void AggregationSession::on_deadline() {
  std::vector<size_t> late;
  const Phase now = phase();
  if (now == Phase::Joining) {
    // The seats nobody took are to blame: in a keyed session each is one named party's.
    for (size_t j = 0; j < seats_.size(); ++j)
      if (!seats_[j].taken) late.push_back(j);
    abort(AbortKind::JoinTimeout, "only " + std::to_string(seats_taken()) + " of " + std::to_string(params_.parties) +
              " parties joined before the deadline",
          std::move(late));
    return;
  }
  for (size_t j = 0; j < inbox_.size(); ++j)
    if (!inbox_[j]) late.push_back(j);
  abort(AbortKind::RoundTimeout, std::string("round deadline passed in ") + phase_name(now), std::move(late));
}

void AggregationSession::on_deliver(size_t position, const std::shared_ptr<PartyLink>& link, wire::Message message) {
  const Phase now = phase();
  if (now == Phase::Done || !from_seat(position, link)) return;
  // A party that resumed its seat may repeat the last message it sent, even after its round
  // has closed (it cannot know whether the message arrived); the same bytes are harmless.
  auto bytes = wire::encode(message);
  if (bytes == last_accepted_[position]) return;
  const bool committing = now == Phase::Joining || now == Phase::BitCommitments;
  const bool expected = (committing && std::holds_alternative<BitCommitment>(message)) ||
                        (now == Phase::PolyCommitments && std::holds_alternative<PolyCommitment>(message)) ||
                        (now == Phase::ProofShares && std::holds_alternative<ProofShare>(message));
  if (!expected) return abort(AbortKind::ProtocolViolation, std::string("out-of-order message during ") + phase_name(now), {position});
  if (inbox_[position]) return abort(AbortKind::ProtocolViolation, "a second, different message in one round", {position});
  inbox_[position] = std::move(message);
  last_accepted_[position] = std::move(bytes);
  if (now == Phase::Joining) return;  // the round starts when every seat is taken
  for (const auto& m : inbox_)
    if (!m) return;
  complete_round();
}

void AggregationSession::complete_round() {
  const Phase completed = phase();
  env_.metrics->round_latency(phase_name(completed),
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count());
  if (completed == Phase::BitCommitments) {
    auto next = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_))
                    .receive_bit_commitments(collect<BitCommitment>(inbox_));
    if (!next) return abort(AbortKind::InvalidShares, mpc::describe(next.error()), next.error().blamed);
    dealer_ = std::move(next->first);
    start_round();
    broadcast(next->second);
  } else if (completed == Phase::PolyCommitments) {
    auto next = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_))
                    .receive_poly_commitments(collect<PolyCommitment>(inbox_));
    if (!next) return abort(AbortKind::InvalidShares, mpc::describe(next.error()), next.error().blamed);
    dealer_ = std::move(next->first);
    start_round();
    broadcast(next->second);
  } else if (completed == Phase::ProofShares) {
    auto result =
        std::move(std::get<mpc::DealerAwaitingProofShares>(dealer_)).receive_shares(collect<ProofShare>(inbox_));
    if (!result) return abort(AbortKind::InvalidShares, mpc::describe(result.error()), result.error().blamed);
    finish_ok(std::move(*result));
  }
}

void AggregationSession::broadcast(const wire::Message& message) {
  last_broadcast_ = frame_of(message);
  for (auto& seat : seats_)
    if (seat.link) seat.link->send(last_broadcast_);
}

void AggregationSession::finish_ok(mpc::AggregationResult result) {
  wire::ResultMsg signed_result{std::move(result), std::nullopt};
  const auto& dealer = *env_.dealer_key;
  signed_result.attestation = wire::Attestation{
      id_, dealer.public_key(), dealer.sign(wire::result_statement(dealer.public_key(), id_, signed_result.result))};
  auto outcome = SessionOutcome{id_, params_, true, {}, {}, signed_result};
  record_then(std::move(outcome), [this, signed_result = std::move(signed_result)] {
    env_.metrics->session_completed();
    log::info("session completed", {{"session", id_},
                                     {"proof_bytes", signed_result.result.proof.to_bytes().size()},
                                     {"parties", params_.parties}});
    broadcast(signed_result);
    close_all();
  });
}

void AggregationSession::abort(AbortKind kind, const std::string& reason, std::vector<size_t> blamed) {
  if (phase() == Phase::Done) return;
  auto outcome = SessionOutcome{id_, params_, false, reason, blamed, std::nullopt};
  record_then(std::move(outcome), [this, kind, reason, blamed = std::move(blamed)] {
    env_.metrics->session_aborted(kind);
    log::warn("session aborted", {{"session", id_},
                                   {"kind", abort_kind_label(kind)},
                                   {"reason", reason},
                                   {"blamed", blamed}});
    broadcast(wire::AbortMsg{reason, blamed});
    close_all();
  });
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
