#include "session/session.hpp"

#include <sodium.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "bp/wire/auth.hpp"
#include "observability/log.hpp"
#include "session/refusals.hpp"

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

wire::DealerCheckpoint first_checkpoint(const SessionTerms& terms) {
  wire::DealerCheckpoint c;
  c.bits = terms.params.n;
  c.parties = terms.params.parties;
  c.transcript_label = terms.params.label;
  c.round_timeout_ms = static_cast<uint32_t>(terms.round_timeout.count());
  c.allowed_parties = terms.allowed;
  c.owner_key = terms.owner.operator_key;
  c.owner_address = terms.owner.address;
  randombytes_buf(c.padding_seed.data(), c.padding_seed.size());
  c.seats.resize(terms.params.parties);
  return c;
}

std::optional<SessionTerms> terms_of(const std::string& id, const wire::DealerCheckpoint& c) {
  // The label starts with every parameter and the id itself: a checkpoint stored under
  // another session's row (a damaged record) is refused here.
  const std::string prefix = mpc::session_label(id, c.bits, c.parties, "");
  if (c.transcript_label.rfind(prefix, 0) != 0) return std::nullopt;
  SessionTerms t;
  t.id = id;
  t.params = mpc::SessionParams{c.bits, c.parties, c.transcript_label};
  t.allowed = c.allowed_parties;
  t.round_timeout = std::chrono::milliseconds(c.round_timeout_ms);
  t.owner = SessionOwner{c.owner_key, c.owner_address};
  return t;
}

AggregationSession::AggregationSession(asio::io_context& ioc, SessionTerms terms, wire::DealerCheckpoint checkpoint,
                                       uint64_t epoch, SessionEnv env)
    : strand_(asio::make_strand(ioc)),
      terms_(std::move(terms)),
      params_(terms_.params),
      env_(std::move(env)),
      epoch_(epoch),
      restored_(std::move(checkpoint)),
      padding_seed_(restored_.padding_seed),
      deadline_(strand_),
      retry_(strand_) {}

wire::SessionSummary AggregationSession::summary() const {
  return {id(), params_.n, params_.parties, public_joined_.load(), phase_name(public_phase_.load()), {}};
}

AggregationSession::Phase AggregationSession::phase() const {
  if (std::holds_alternative<mpc::DealerAwaitingBitCommitments>(dealer_))
    return seats_taken() < params_.parties ? Phase::Joining : Phase::BitCommitments;
  if (std::holds_alternative<mpc::DealerAwaitingPolyCommitments>(dealer_)) return Phase::PolyCommitments;
  if (std::holds_alternative<mpc::DealerAwaitingProofShares>(dealer_)) return Phase::ProofShares;
  if (std::holds_alternative<Ended>(dealer_) || std::holds_alternative<Moved>(dealer_)) return Phase::Done;
  return Phase::Joining;  // not started yet
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
  }
  return "?";
}

void AggregationSession::start() {
  asio::post(strand_, [self = shared_from_this()] { self->rebuild(); });
}

// The dealer from the checkpoint: the padding parties from its seed, then each round it
// decided, fed the same commitments, so the challenges come out as they did before.
void AggregationSession::rebuild() {
  auto fresh = mpc::DealerAwaitingBitCommitments::create(*env_.bp_gens, *env_.pc_gens, params_, padding_seed_);
  if (!fresh) return abort(AbortKind::Internal, mpc::describe(fresh.error()), {});
  seats_.resize(params_.parties);
  for (size_t j = 0; j < seats_.size() && j < restored_.seats.size(); ++j) {
    seats_[j].taken = restored_.seats[j].taken;
    seats_[j].token_hash = restored_.seats[j].token_hash;
    seats_[j].peer = restored_.seats[j].peer;
  }
  inbox_.assign(params_.parties, std::nullopt);
  last_accepted_.assign(params_.parties, {});
  dealer_ = std::move(*fresh);
  auto replayed = [&]() -> std::optional<std::string> {
    if (restored_.bit_commitments.empty()) return std::nullopt;
    auto bits = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_))
                    .receive_bit_commitments(restored_.bit_commitments);
    if (!bits) return mpc::describe(bits.error());
    dealer_ = std::move(bits->first);
    accepted_bits_ = restored_.bit_commitments;
    last_broadcast_ = frame_of(bits->second);
    for (size_t j = 0; j < accepted_bits_.size(); ++j) last_accepted_[j] = wire::encode(accepted_bits_[j]);
    if (restored_.poly_commitments.empty()) return std::nullopt;
    auto polys = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_))
                     .receive_poly_commitments(restored_.poly_commitments);
    if (!polys) return mpc::describe(polys.error());
    dealer_ = std::move(polys->first);
    accepted_polys_ = restored_.poly_commitments;
    last_broadcast_ = frame_of(polys->second);
    for (size_t j = 0; j < accepted_polys_.size(); ++j) last_accepted_[j] = wire::encode(accepted_polys_[j]);
    return std::nullopt;
  }();
  restored_ = {};
  if (replayed) return abort(AbortKind::Internal, "the checkpoint does not replay: " + *replayed, {});
  publish_progress();
  if (epoch_ == kFirstEpoch) {
    env_.metrics->session_started();
    log::info("session created", {{"session", id()},
                                  {"bits", params_.n},
                                  {"parties", params_.parties},
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
                              std::optional<wire::PublicKey> party_key, std::vector<uint8_t> seat_token) {
  asio::post(strand_, [self = shared_from_this(), link = std::move(link), token = std::move(token), party_key,
                       seat_token = std::move(seat_token)]() mutable {
    self->on_join(std::move(link), std::move(token), party_key, std::move(seat_token));
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
    log::warn("party misbehaved", {{"session", self->id()}, {"position", position}, {"reason", reason}});
    self->abort(AbortKind::ProtocolViolation, reason, {position});
  });
}

void AggregationSession::disconnected(size_t position, std::shared_ptr<PartyLink> link) {
  asio::post(strand_, [self = shared_from_this(), position, link = std::move(link)] {
    if (self->phase() == Phase::Done || !self->from_seat(position, link)) return;
    Seat& seat = self->seats_[position];
    seat.link.reset();
    self->env_.metrics->party_left();
    log::info("party disconnected; seat held",
              {{"session", self->id()}, {"position", position}, {"grace_ms", self->env_.reconnect_grace.count()}});
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

void AggregationSession::resume_seat(size_t position, const std::shared_ptr<PartyLink>& link,
                                     const std::vector<uint8_t>& token) {
  Seat& seat = seats_[position];
  seat.link = link;
  seat.grace.reset();
  env_.metrics->party_joined();
  link->seated(weak_from_this(), position);
  link->send(frame_of(wire::JoinedMsg{position, params_.n, params_.parties, params_.label, token}));
  if (last_broadcast_) link->send(last_broadcast_);
  log::info("party resumed its seat", {{"session", id()}, {"position", position}, {"epoch", epoch_}});
}

void AggregationSession::on_join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token,
                                 std::optional<wire::PublicKey> key, std::vector<uint8_t> seat_token) {
  auto refuse = [&](const std::string& why) {
    log::warn("join refused", {{"session", id()}, {"remote", link->peer()}, {"reason", why}});
    link->send(frame_of(wire::AbortMsg{why, {}}));
    link->close();
  };
  if (std::holds_alternative<Moved>(dealer_)) {
    // Between a hand-over and the registry forgetting us: the party goes where the session is.
    link->send(
        frame_of(wire::AbortMsg{"the session moves to another dealer replica: join again", {}, kReconnectAfterMs}));
    return link->close();
  }
  if (phase() == Phase::Done) return refuse(refusal::kSessionEnded);

  // Which seat: the key's own position in an allow-list session, else any taken seat that
  // the resume token opens, else the first free one.
  std::optional<size_t> position;
  if (!terms_.allowed.empty()) {
    if (!key) return refuse("this session admits only the parties it lists: sign the join with your key");
    const auto it = std::find(terms_.allowed.begin(), terms_.allowed.end(), *key);
    if (it == terms_.allowed.end()) return refuse("this key is not allowed in the session");
    position = static_cast<size_t>(it - terms_.allowed.begin());
  }
  // A resume token, or the seat token of a party that never heard its Joined, opens the
  // seat it names (never another key's).
  const bool resuming = !token.empty();
  const auto& presented_token = resuming ? token : seat_token;
  if (!presented_token.empty()) {
    const wire::TokenHash presented = wire::hash_resume_token(presented_token);
    for (size_t j = 0; j < seats_.size(); ++j) {
      if (position && j != *position) continue;
      Seat& seat = seats_[j];
      if (!seat.taken || sodium_memcmp(seat.token_hash.data(), presented.data(), presented.size()) != 0) continue;
      if (seat.link) {
        // The party is back before its old connection was seen to drop (they are on
        // different strands): the token holder takes the seat, the old link is let go.
        seat.link->close();
        seat.link.reset();
        env_.metrics->party_left();
      }
      return resume_seat(j, link, presented_token);
    }
    if (resuming) return refuse("no vacant seat for this resume token");
  }
  if (position && seats_[*position].taken) {
    if (seats_[*position].link) return refuse("this party has joined already (resume with its token)");
    // Its key proves who it is: a party that never heard of its seat (the Joined frame was
    // lost with its connection) takes it again, under a new token.
    return give_seat(*position, link, key, true, std::move(seat_token));
  }
  if (phase() != Phase::Joining) return refuse("the session is full");
  if (!position) {
    const auto free = std::find_if(seats_.begin(), seats_.end(), [](const Seat& s) { return !s.taken; });
    if (free == seats_.end()) return refuse("the session is full");
    position = static_cast<size_t>(free - seats_.begin());
  }
  give_seat(*position, link, key, false, std::move(seat_token));
}

void AggregationSession::give_seat(size_t position, const std::shared_ptr<PartyLink>& link,
                                   const std::optional<wire::PublicKey>& key, bool again, std::vector<uint8_t> token) {
  if (token.empty()) {  // a party before 1.3 names none: we pick it
    token.resize(wire::kResumeTokenBytes);
    randombytes_buf(token.data(), token.size());
  }
  Seat& seat = seats_[position];
  seat.taken = true;
  seat.link = link;
  seat.peer = link->peer();
  seat.token_hash = wire::hash_resume_token(token);
  seat.grace.reset();
  publish_progress();
  env_.metrics->party_joined();
  // The party hears of its seat only once the record holds it (with its token's hash), so a
  // replica that takes the session over can seat it again; its connection reads nothing more
  // until then.
  persist_then([this, position, link, token = std::move(token), key, again] {
    announce_seat(position, link, token, key, again);
  });
}

void AggregationSession::announce_seat(size_t position, const std::shared_ptr<PartyLink>& link,
                                       const std::vector<uint8_t>& token, const std::optional<wire::PublicKey>& key,
                                       bool again) {
  if (seats_[position].link == link) {
    link->seated(weak_from_this(), position);
    link->send(frame_of(wire::JoinedMsg{position, params_.n, params_.parties, params_.label, token}));
    if (again && last_broadcast_) link->send(last_broadcast_);
    log::info("party joined", {{"session", id()},
                               {"position", position},
                               {"remote", seats_[position].peer},
                               {"party_key", key ? wire::public_key_hex(*key) : std::string("anonymous")}});
  }
  if (phase() == Phase::BitCommitments && round_open_ != Phase::BitCommitments) {  // every seat is taken
    start_round();
    // Parties commit as soon as they are seated; the last one may complete the round.
    if (std::all_of(inbox_.begin(), inbox_.end(), [](const auto& m) { return m.has_value(); })) complete_round();
  }
}

void AggregationSession::start_round() {
  // Bit commitments may arrive while others are still joining; later rounds start empty.
  const Phase now = phase();
  if (now != Phase::BitCommitments && now != Phase::Joining) inbox_.assign(params_.parties, std::nullopt);
  round_open_ = now;
  publish_progress();
  round_started_ = std::chrono::steady_clock::now();
  arm_deadline();
}

void AggregationSession::arm_deadline() {
  deadline_.expires_after(terms_.round_timeout);
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
    abort(AbortKind::JoinTimeout,
          "only " + std::to_string(seats_taken()) + " of " + std::to_string(params_.parties) +
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
  if (!expected)
    return abort(AbortKind::ProtocolViolation, std::string("out-of-order message during ") + phase_name(now),
                 {position});
  if (inbox_[position])
    return abort(AbortKind::ProtocolViolation, "a second, different message in one round", {position});
  inbox_[position] = std::move(message);
  last_accepted_[position] = std::move(bytes);
  // The round starts once every seat is taken and the record holds them.
  if (now == Phase::Joining || round_open_ != now) return;
  for (const auto& m : inbox_)
    if (!m) return;
  complete_round();
}

// A round's challenge goes out only once the record holds what decided it.
void AggregationSession::complete_round() {
  const Phase completed = phase();
  env_.metrics->round_latency(phase_name(completed),
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count());
  if (completed == Phase::BitCommitments) {
    auto bits = collect<BitCommitment>(inbox_);
    auto next = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_)).receive_bit_commitments(bits);
    if (!next) return abort(AbortKind::InvalidShares, mpc::describe(next.error()), next.error().blamed);
    dealer_ = std::move(next->first);
    accepted_bits_ = std::move(bits);
    inbox_.assign(params_.parties, std::nullopt);
    persist_then([this, challenge = frame_of(next->second)] {
      start_round();
      broadcast(challenge);
    });
  } else if (completed == Phase::PolyCommitments) {
    auto polys = collect<PolyCommitment>(inbox_);
    auto next = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_)).receive_poly_commitments(polys);
    if (!next) return abort(AbortKind::InvalidShares, mpc::describe(next.error()), next.error().blamed);
    dealer_ = std::move(next->first);
    accepted_polys_ = std::move(polys);
    inbox_.assign(params_.parties, std::nullopt);
    persist_then([this, challenge = frame_of(next->second)] {
      start_round();
      broadcast(challenge);
    });
  } else if (completed == Phase::ProofShares) {
    auto result =
        std::move(std::get<mpc::DealerAwaitingProofShares>(dealer_)).receive_shares(collect<ProofShare>(inbox_));
    if (!result) return abort(AbortKind::InvalidShares, mpc::describe(result.error()), result.error().blamed);
    finish_ok(std::move(*result));
  }
}

void AggregationSession::broadcast(Frame frame) {
  last_broadcast_ = std::move(frame);
  for (auto& seat : seats_)
    if (seat.link) seat.link->send(last_broadcast_);
}

void AggregationSession::finish_ok(mpc::AggregationResult result) {
  wire::ResultMsg signed_result{std::move(result), std::nullopt};
  const auto& dealer = *env_.dealer_key;
  signed_result.attestation = wire::Attestation{
      id(), dealer.public_key(), dealer.sign(wire::result_statement(dealer.public_key(), id(), signed_result.result))};
  auto outcome = SessionOutcome{id(), params_, true, {}, {}, signed_result};
  record_then(std::move(outcome), [this, signed_result = std::move(signed_result)] {
    env_.metrics->session_completed();
    log::info("session completed", {{"session", id()},
                                    {"proof_bytes", signed_result.result.proof.to_bytes().size()},
                                    {"parties", params_.parties},
                                    {"epoch", epoch_}});
    broadcast(frame_of(signed_result));
    close_all();
  });
}

void AggregationSession::abort(AbortKind kind, const std::string& reason, std::vector<size_t> blamed) {
  if (phase() == Phase::Done) return;
  auto outcome = SessionOutcome{id(), params_, false, reason, blamed, std::nullopt};
  record_then(std::move(outcome), [this, kind, reason, blamed = std::move(blamed)] {
    env_.metrics->session_aborted(kind);
    log::warn("session aborted",
              {{"session", id()}, {"kind", abort_kind_label(kind)}, {"reason", reason}, {"blamed", blamed}});
    broadcast(frame_of(wire::AbortMsg{reason, blamed}));
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
