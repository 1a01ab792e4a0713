#include "session/session.hpp"

#include <sodium.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "bp/wire/auth.hpp"
#include "observability/log.hpp"
#include "session/refusals.hpp"

namespace bp::server {

namespace asio = boost::asio;

std::shared_ptr<const std::vector<uint8_t>> frame_of(const wire::Message& m) {
  return std::make_shared<const std::vector<uint8_t>>(wire::encode(m));
}

namespace {

template <class T>
std::vector<T> collect(std::vector<std::optional<wire::Message>>& inbox) {
  std::vector<T> out;
  out.reserve(inbox.size());
  for (auto& m : inbox) out.push_back(std::get<T>(std::move(*m)));
  return out;
}

}  // namespace

AggregationSession::AggregationSession(asio::io_context& ioc, SessionTerms terms, wire::DealerCheckpoint checkpoint,
                                       uint64_t epoch, SessionEnv env)
    : strand_(asio::make_strand(ioc)),
      terms_(std::move(terms)),
      params_(terms_.params),
      env_(std::move(env)),
      epoch_(epoch),
      restored_(std::move(checkpoint)),
      party_count_(terms_.seat_shapes().size()),
      padding_seed_(restored_.padding_seed),
      deadline_(strand_),
      retry_(strand_) {}

wire::SessionSummary AggregationSession::summary() const {
  return {id(), params_.n, party_count_, public_joined_.load(), phase_name(public_phase_.load()), {}};
}

AggregationSession::Phase AggregationSession::phase() const {
  if (std::holds_alternative<mpc::DealerAwaitingBitCommitments>(dealer_))
    return seats_taken() < seats_.size() ? Phase::Joining : Phase::BitCommitments;
  if (std::holds_alternative<mpc::DealerAwaitingPolyCommitments>(dealer_)) return Phase::PolyCommitments;
  if (std::holds_alternative<mpc::DealerAwaitingProofShares>(dealer_)) return Phase::ProofShares;
  if (std::holds_alternative<mpc::R1CSDealerAwaitingFirstPhases>(dealer_))
    return seats_taken() < seats_.size() ? Phase::Joining : Phase::FirstPhases;
  if (std::holds_alternative<mpc::R1CSDealerAwaitingSecondPhases>(dealer_)) return Phase::SecondPhases;
  if (std::holds_alternative<mpc::R1CSDealerAwaitingPolys>(dealer_)) return Phase::PolyCommitments;
  if (std::holds_alternative<mpc::R1CSDealerAwaitingShares>(dealer_)) return Phase::ProofShares;
  if (std::holds_alternative<Checking>(dealer_) || std::holds_alternative<Ended>(dealer_) ||
      std::holds_alternative<Moved>(dealer_))
    return Phase::Done;
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
  last_accepted_.assign(seats_.size(), {});
  auto replayed = gadget_session() ? replay_gadget_rounds() : replay_range_rounds();
  if (std::holds_alternative<Ended>(dealer_)) return;  // the dealer could not be made: aborted
  restored_ = {};
  if (replayed) return abort(AbortKind::Internal, "the checkpoint does not replay: " + *replayed, {});
  publish_progress();
  if (epoch_ == kFirstEpoch) {
    env_.metrics->session_started();
    log::info("session created", {{"session", id()},
                                  {"bits", params_.n},
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

// The padding parties from the seed, then rounds 1 and 2 if the checkpoint decided them.
std::optional<std::string> AggregationSession::replay_range_rounds() {
  auto fresh = mpc::DealerAwaitingBitCommitments::create(*env_.bp_gens, *env_.pc_gens, params_, padding_seed_);
  if (!fresh) {
    abort(AbortKind::Internal, mpc::describe(fresh.error()), {});
    return std::nullopt;
  }
  dealer_ = std::move(*fresh);
  if (restored_.bit_commitments.empty()) return std::nullopt;
  auto bits = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_))
                  .receive_bit_commitments(restored_.bit_commitments);
  if (!bits) return mpc::describe(bits.error());
  dealer_ = std::move(bits->first);
  accepted_bits_ = restored_.bit_commitments;
  last_broadcast_ = frame_of(bits->second);
  for (size_t j = 0; j < seats_.size(); ++j) last_accepted_[j] = accepted_of_seat(j, accepted_bits_);
  if (restored_.poly_commitments.empty()) return std::nullopt;
  auto polys = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_))
                   .receive_poly_commitments(restored_.poly_commitments);
  if (!polys) return mpc::describe(polys.error());
  dealer_ = std::move(polys->first);
  accepted_polys_ = restored_.poly_commitments;
  last_broadcast_ = frame_of(polys->second);
  for (size_t j = 0; j < seats_.size(); ++j) last_accepted_[j] = accepted_of_seat(j, accepted_polys_);
  return std::nullopt;
}

// A gadget session's dealer has no randomness of its own: the rounds decided are replayed
// as they were, each one's broadcast being every seat's message of it.
std::optional<std::string> AggregationSession::replay_gadget_rounds() {
  auto fresh = mpc::R1CSDealerAwaitingFirstPhases::create(*terms_.gadgets, params_.label);
  if (!fresh) {
    abort(AbortKind::Internal, mpc::describe(fresh.error()), {});
    return std::nullopt;
  }
  dealer_ = std::move(*fresh);
  const auto remember = [&](const auto& accepted) {
    for (size_t j = 0; j < seats_.size(); ++j) last_accepted_[j] = wire::encode(wire::Message{accepted[j]});
  };
  if (restored_.r1cs_first_phases.empty()) return std::nullopt;
  auto second = std::move(std::get<mpc::R1CSDealerAwaitingFirstPhases>(dealer_)).receive(restored_.r1cs_first_phases);
  if (!second) return mpc::describe(second.error());
  dealer_ = std::move(*second);
  accepted_first_ = restored_.r1cs_first_phases;
  last_broadcast_ = frame_of(wire::R1CSFirstPhases{accepted_first_});
  remember(accepted_first_);
  if (restored_.r1cs_second_phases.empty()) return std::nullopt;
  auto polys = std::move(std::get<mpc::R1CSDealerAwaitingSecondPhases>(dealer_)).receive(restored_.r1cs_second_phases);
  if (!polys) return mpc::describe(polys.error());
  dealer_ = std::move(*polys);
  accepted_second_ = restored_.r1cs_second_phases;
  last_broadcast_ = frame_of(wire::R1CSSecondPhases{accepted_second_});
  remember(accepted_second_);
  if (restored_.r1cs_poly_commitments.empty()) return std::nullopt;
  auto shares = std::move(std::get<mpc::R1CSDealerAwaitingPolys>(dealer_)).receive(restored_.r1cs_poly_commitments);
  if (!shares) return mpc::describe(shares.error());
  dealer_ = std::move(*shares);
  accepted_gadget_polys_ = restored_.r1cs_poly_commitments;
  last_broadcast_ = frame_of(wire::R1CSPolyShares{accepted_gadget_polys_});
  remember(accepted_gadget_polys_);
  return std::nullopt;
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

// The items of a round in one canonical encoding, whichever form they came in: what a
// resumed party's repeat is compared with.
template <class Item>
std::vector<uint8_t> canonical(const std::vector<Item>& items) {
  if constexpr (std::is_same_v<Item, BitCommitment>) return wire::encode(wire::BitCommitments{items});
  if constexpr (std::is_same_v<Item, PolyCommitment>) return wire::encode(wire::PolyCommitments{items});
  if constexpr (std::is_same_v<Item, ProofShare>) return wire::encode(wire::ProofShares{items});
}
template <class Item>
std::vector<uint8_t> canonical(const std::vector<wire::Message>& items) {
  std::vector<Item> typed;
  for (const auto& m : items) typed.push_back(std::get<Item>(m));
  return canonical(typed);
}

}  // namespace

template <class Item>
std::vector<uint8_t> AggregationSession::accepted_of_seat(size_t seat, const std::vector<Item>& accepted) const {
  const SeatShape& shape = seats_[seat].shape;
  const auto first = accepted.begin() + static_cast<std::ptrdiff_t>(shape.first_position);
  return canonical(std::vector<Item>(first, first + static_cast<std::ptrdiff_t>(shape.positions)));
}

// The round whose messages a phase takes (round_items' numbering); 0: none.
int AggregationSession::round_of(Phase now, bool gadgets) {
  using P = Phase;
  if (gadgets)
    return now == P::Joining || now == P::FirstPhases ? 4
           : now == P::SecondPhases                   ? 5
           : now == P::PolyCommitments                ? 6
           : now == P::ProofShares                    ? 7
                                                      : 0;
  return now == P::Joining || now == P::BitCommitments ? 1
         : now == P::PolyCommitments                   ? 2
         : now == P::ProofShares                       ? 3
                                                       : 0;
}

void AggregationSession::on_deliver(size_t seat, const std::shared_ptr<PartyLink>& link, wire::Message message) {
  const Phase now = phase();
  if (now == Phase::Done || !from_seat(seat, link)) return;
  const SeatShape& shape = seats_[seat].shape;
  if (auto* withdrawn = std::get_if<wire::AbortMsg>(&message)) {
    // The party's own words stay in this log: the record, /v1/sessions and the other parties
    // hear only the kind, so that no reason a party gives can carry anything about its values.
    log::info("party withdrew",
              {{"session", id()}, {"position", shape.first_position}, {"reason", withdrawn->reason.substr(0, 200)}});
    return abort(AbortKind::Withdrawn, refusal::kPartyWithdrew, blame_of_seat(seat));
  }
  auto round = round_items(std::move(message));
  const int expected_round = round_of(now, gadget_session());
  // A party that resumed its seat may repeat the last message it sent, even after its round
  // has closed (it cannot know whether the message arrived); the same items are harmless.
  if (round.round != 0 && round.items.size() == shape.positions) {
    const auto bytes = round.round == 1   ? canonical<BitCommitment>(round.items)
                       : round.round == 2 ? canonical<PolyCommitment>(round.items)
                       : round.round == 3 ? canonical<ProofShare>(round.items)
                                          : wire::encode(round.items.front());
    if (bytes == last_accepted_[seat]) return;
    if (round.round == expected_round && gadget_session()) {
      if (auto why = gadget_misfit(seat, round.items.front()))
        return abort(AbortKind::InvalidShares, *why, blame_of_seat(seat));
    }
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

// A round's challenge goes out only once the record holds what decided it.
void AggregationSession::complete_round() {
  const Phase completed = phase();
  env_.metrics->round_latency(phase_name(completed),
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count());
  if (gadget_session()) return complete_gadget_round(completed);
  if (completed == Phase::BitCommitments) {
    auto bits = collect<BitCommitment>(inbox_);
    if (auto bad = bad_bounded_seats(bits); !bad.empty()) {
      std::vector<size_t> blamed;
      for (size_t j : bad)
        for (size_t p : blame_of_seat(j)) blamed.push_back(p);
      return abort(AbortKind::InvalidShares,
                   "MalformedBitCommitments: a bounded value's two positions do not add up to (max - min)·B",
                   std::move(blamed));
    }
    auto next = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_)).receive_bit_commitments(bits);
    if (!next)
      return abort(AbortKind::InvalidShares, mpc::describe(next.error()), blame_of_positions(next.error().blamed));
    dealer_ = std::move(next->first);
    accepted_bits_ = std::move(bits);
    inbox_.assign(params_.positions, std::nullopt);
    persist_then([this, challenge = frame_of(next->second)] {
      start_round();
      broadcast(challenge);
    });
  } else if (completed == Phase::PolyCommitments) {
    auto polys = collect<PolyCommitment>(inbox_);
    auto next = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_)).receive_poly_commitments(polys);
    if (!next)
      return abort(AbortKind::InvalidShares, mpc::describe(next.error()), blame_of_positions(next.error().blamed));
    dealer_ = std::move(next->first);
    accepted_polys_ = std::move(polys);
    inbox_.assign(params_.positions, std::nullopt);
    persist_then([this, challenge = frame_of(next->second)] {
      start_round();
      broadcast(challenge);
    });
  } else if (completed == Phase::ProofShares) {
    auto assembled =
        std::move(std::get<mpc::DealerAwaitingProofShares>(dealer_)).assemble_shares(collect<ProofShare>(inbox_));
    if (!assembled)
      return abort(AbortKind::InvalidShares, mpc::describe(assembled.error()),
                   blame_of_positions(assembled.error().blamed));
    if (!env_.checker) return checked(std::move(*assembled).check());
    dealer_ = Checking{};
    deadline_.cancel();
    env_.checker->check(std::move(*assembled), params_.padded_m(), [self = shared_from_this()](auto result) {
      asio::post(self->strand_, [self, result = std::move(result)]() mutable { self->checked(std::move(result)); });
    });
  }
}

// A gadget session's round: every seat's message goes to the dealer, and once the record
// holds them, back to every party (which draws the challenges from them itself). The last
// round's shares give the proof, checked before it is signed.
void AggregationSession::complete_gadget_round(Phase completed) {
  const auto blamed_abort = [this](const mpc::MpcError& e) {
    abort(AbortKind::InvalidShares, mpc::describe(e), blame_of_positions(e.blamed));  // seat j is position j
  };
  const auto next_round = [this](Frame frame) {
    inbox_.assign(params_.positions, std::nullopt);
    persist_then([this, frame = std::move(frame)] {
      start_round();
      broadcast(frame);
    });
  };
  if (completed == Phase::FirstPhases) {
    auto all = collect<R1CSFirstPhaseShare>(inbox_);
    auto next = std::move(std::get<mpc::R1CSDealerAwaitingFirstPhases>(dealer_)).receive(all);
    if (!next) return blamed_abort(next.error());
    dealer_ = std::move(*next);
    accepted_first_ = std::move(all);
    next_round(frame_of(wire::R1CSFirstPhases{accepted_first_}));
  } else if (completed == Phase::SecondPhases) {
    auto all = collect<R1CSSecondPhaseShare>(inbox_);
    auto next = std::move(std::get<mpc::R1CSDealerAwaitingSecondPhases>(dealer_)).receive(all);
    if (!next) return blamed_abort(next.error());
    dealer_ = std::move(*next);
    accepted_second_ = std::move(all);
    next_round(frame_of(wire::R1CSSecondPhases{accepted_second_}));
  } else if (completed == Phase::PolyCommitments) {
    auto all = collect<R1CSPolyShare>(inbox_);
    auto next = std::move(std::get<mpc::R1CSDealerAwaitingPolys>(dealer_)).receive(all);
    if (!next) return blamed_abort(next.error());
    dealer_ = std::move(*next);
    accepted_gadget_polys_ = std::move(all);
    next_round(frame_of(wire::R1CSPolyShares{accepted_gadget_polys_}));
  } else if (completed == Phase::ProofShares) {
    deadline_.cancel();
    auto assembled =
        std::move(std::get<mpc::R1CSDealerAwaitingShares>(dealer_)).assemble(collect<R1CSProofShare>(inbox_));
    if (!assembled) return blamed_abort(assembled.error());
    // Checked like a range proof: off the strand, in a batch with other sessions' proofs.
    if (!env_.checker) return gadgets_checked(std::move(*assembled).check());
    dealer_ = Checking{};
    env_.checker->check(std::move(*assembled), [self = shared_from_this()](auto result) {
      asio::post(self->strand_,
                 [self, result = std::move(result)]() mutable { self->gadgets_checked(std::move(result)); });
    });
  }
}

void AggregationSession::gadgets_checked(mpc::MpcResult<R1CSAggregate> result) {
  // Moved on meanwhile (lost its lease, taken over): the replica that has it now finishes it.
  if (std::holds_alternative<Moved>(dealer_) || std::holds_alternative<Ended>(dealer_)) return;
  if (!result)
    return abort(AbortKind::InvalidShares, mpc::describe(result.error()), blame_of_positions(result.error().blamed));
  finish_gadgets_ok(std::move(*result));
}

void AggregationSession::finish_gadgets_ok(R1CSAggregate aggregate) {
  wire::R1CSResultMsg signed_result{terms_.gadgets->text(), params_.label, std::move(aggregate.commitments),
                                    std::move(aggregate.proof), std::nullopt};
  const auto& dealer = *env_.dealer_key;
  signed_result.attestation = wire::Attestation{
      id(), dealer.public_key(), dealer.sign(wire::r1cs_result_statement(dealer.public_key(), id(), signed_result))};
  auto outcome = SessionOutcome{id(), params_, true, {}, {}, std::nullopt, seats_.size(), signed_result};
  record_then(std::move(outcome), [this, signed_result = std::move(signed_result)] {
    env_.metrics->session_completed();
    log::info("session completed", {{"session", id()},
                                    {"gadgets", signed_result.gadgets},
                                    {"proof_bytes", signed_result.proof.serialized_size()},
                                    {"parties", seats_.size()},
                                    {"epoch", epoch_}});
    broadcast(frame_of(signed_result));
    answer_late_joiners(last_broadcast_);
    close_all();
  });
}

void AggregationSession::checked(mpc::MpcResult<mpc::AggregationResult> result) {
  // Moved on meanwhile (lost its lease, taken over): the replica that has it now finishes it.
  if (std::holds_alternative<Moved>(dealer_) || std::holds_alternative<Ended>(dealer_)) return;
  if (!result)
    return abort(AbortKind::InvalidShares, mpc::describe(result.error()), blame_of_positions(result.error().blamed));
  finish_ok(std::move(*result));
}

void AggregationSession::broadcast(Frame frame) {
  last_broadcast_ = std::move(frame);
  for (auto& seat : seats_)
    if (seat.link) seat.link->send(last_broadcast_);
}

void AggregationSession::finish_ok(mpc::AggregationResult result) {
  wire::ResultMsg signed_result{std::move(result), std::nullopt, terms_.bounds};
  const auto& dealer = *env_.dealer_key;
  signed_result.attestation = wire::Attestation{
      id(), dealer.public_key(), dealer.sign(wire::result_statement(dealer.public_key(), id(), signed_result.result))};
  auto outcome = SessionOutcome{id(), params_, true, {}, {}, signed_result, seats_.size()};
  record_then(std::move(outcome), [this, signed_result = std::move(signed_result)] {
    env_.metrics->session_completed();
    log::info("session completed", {{"session", id()},
                                    {"proof_bytes", signed_result.result.proof.to_bytes().size()},
                                    {"parties", seats_.size()},
                                    {"positions", params_.positions},
                                    {"epoch", epoch_}});
    broadcast(frame_of(signed_result));
    answer_late_joiners(last_broadcast_);
    close_all();
  });
}

void AggregationSession::abort(AbortKind kind, const std::string& reason, std::vector<size_t> blamed) {
  if (phase() == Phase::Done && !std::holds_alternative<Checking>(dealer_)) return;  // a check's verdict still counts
  auto outcome = SessionOutcome{id(), params_, false, reason, blamed, std::nullopt, seats_.size()};
  record_then(std::move(outcome), [this, kind, reason, blamed = std::move(blamed)] {
    ended_reason_ = reason;
    ended_blamed_ = blamed;
    env_.metrics->session_aborted(kind);
    log::warn("session aborted",
              {{"session", id()}, {"kind", abort_kind_label(kind)}, {"reason", reason}, {"blamed", blamed}});
    broadcast(frame_of(wire::AbortMsg{reason, blamed}));
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
