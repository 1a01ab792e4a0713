// A party's side of a range session: the protocol state between frames (mpc's type-states).
// Its connections are a RejoiningRun's: on each new one it joins with the seat's resume
// token (and its key), resends the last message it sent, and answers a repeated challenge
// with the reply it gave before (mpc's replay); a different challenge for a round it answered
// is refused, so the session goes on wherever it is rebuilt and no secret is ever answered
// twice.
#include <sodium.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <variant>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"
#include "bp/hex.hpp"
#include "bp/wire/json.hpp"
#include "bp/mpc/party.hpp"
#include "conversation.hpp"
#include "rejoining_run.hpp"
#include "signing.hpp"

namespace bp::client {

namespace asio = boost::asio;
using detail::from_mpc;
using detail::protocol_error;
using detail::Step;

namespace {

// Generators per (n, m), core's process-wide ones: a party may run many sessions, and work
// offloaded by a run that timed out may still read them while the process exits.
const BulletproofGens& generators(size_t n, size_t m) { return shared_generators(n, m); }

const PedersenGens& pedersen() { return shared_pedersen(); }

std::string hex_of(std::initializer_list<const Scalar*> scalars) {
  std::string out;
  for (const Scalar* s : scalars) out += to_hex(s->to_bytes());
  return out;
}
std::string challenge_hex(const mpc::BitChallengeMsg& c) { return hex_of({&c.y, &c.z}); }
std::string challenge_hex(const mpc::PolyChallengeMsg& c) { return hex_of({&c.x}); }
int round_of(const mpc::BitChallengeMsg&) { return 1; }
int round_of(const mpc::PolyChallengeMsg&) { return 2; }

class PartyRun final : public detail::RejoiningRun {
 public:
  PartyRun(asio::io_context& ioc, Endpoint dealer, std::string session_id, PartyValues input, Options options,
           LinkEmulation link, std::function<void(ClientResult<PartyOutcome>)> handler)
      : RejoiningRun(ioc, std::move(dealer), std::move(session_id), std::move(options), link),
        input_(std::move(input)),
        handler_(std::move(handler)) {}
  ~PartyRun() override { wipe_input(); }

  // What the input allows before anything is sent: a value per blinding, at most a session's
  // positions, a valid bit size, and a statement its values hold. Whether the values hold it
  // is the one thing checked about them, and the caller learns it anyway; everything after this
  // compares public terms with the statement, never with the values.
  std::optional<ClientError> check_input() {
    const auto refused = [](std::string why) { return ClientError{ClientErrorKind::Refused, std::move(why), {}}; };
    if (input_.values.empty() || input_.values.size() > wire::kMaxPositions)
      return refused("a party brings 1 to " + std::to_string(wire::kMaxPositions) + " values");
    if (input_.values.size() != input_.blindings.size()) return refused("one blinding per value");
    if (!is_valid_bitsize(input_.bits)) return refused("the bit size is 8, 16, 32 or 64");
    if (input_.bounds && input_.bounds->size() != input_.values.size()) return refused("bounds: one per value");
    statement_ =
        input_.bounds ? *input_.bounds : std::vector<ValueBounds>(input_.values.size(), ValueBounds{0, std::nullopt});
    if (bounded_positions(statement_) > wire::kMaxPositions)
      return refused("the values take more than " + std::to_string(wire::kMaxPositions) + " positions");
    if (!check_bounds(statement_, input_.bits))
      return refused("bounds: a minimum above its maximum, or max - min not below 2^" + std::to_string(input_.bits));
    auto witness = bounded_witness(input_.values, input_.blindings, statement_, input_.bits);
    if (!witness) return refused(out_of_statement());
    // A minimum alone leaves v - min below 2^64 only: the statement is v in [min, min + 2^bits).
    uint64_t high = 0;
    if (input_.bits < 64)
      for (uint64_t shifted : witness->values) high |= shifted >> input_.bits;
    witness->wipe();
    if (high != 0) return refused(out_of_statement());
    return std::nullopt;
  }

  // Input refused before any connection: the handler hears it from the io_context, as it
  // would any other outcome.
  void refuse_now(ClientError error) {
    asio::post(strand_,
               [self = self_as<PartyRun>(), error = std::move(error)]() mutable { self->finish(std::move(error)); });
  }

  wire::Message opening(const wire::ChannelContext& channel) override {
    wire::JoinSessionMsg join = join_message(channel);
    // 1.4: the number of values we bring, which the dealer fits to a seat.
    if (channel.dealer_minor_version >= 4) join.values = static_cast<uint32_t>(input_.values.size());
    join.party_auth = detail::signed_by(
        options_.identity, [&](const wire::PublicKey& key) { return wire::join_statement(channel, join, key); });
    return wire::Message{std::move(join)};
  }

  ClientResult<Step> on_message(wire::Message message, const wire::ChannelContext& channel) override {
    return std::visit([&](auto& m) { return handle(m, channel); }, message);
  }

 private:
  using State = std::variant<std::monostate, mpc::PartyAwaitingBitChallenge, mpc::PartyAwaitingPolyChallenge,
                             mpc::PartyAwaitingResult>;

  ClientResult<Step> handle(const wire::JoinedMsg& joined, const wire::ChannelContext& channel) {
    end_outage();
    if (!states_.empty()) {
      // Our seat back after a reconnection (on this replica or another that rebuilt the
      // session): the same seat of the same session, and our last message again.
      if (joined.position != position_ || joined.positions != states_.size() || joined.bits != input_.bits ||
          joined.transcript_label != label_)
        return ClientError{ClientErrorKind::MaliciousDealer,
                           "resumed at another position or in another session: " + seat_terms(joined),
                           {}};
      resume_token_ = joined.resume_token;
      emit({PartyEvent::Kind::Resumed, 0, position_, 0, {}, {}, {}});
      return send_last_again();
    }
    if (auto refusal = seat_refusal(joined, channel)) return withdraw(std::move(*refusal));
    // The seat is the statement we checked our values against before connecting: the witness
    // cannot fail now. Our values stay until the run ends: a successor session proves them again.
    mpc::SessionParams params{joined.bits, joined.session_positions, joined.transcript_label};
    auto witness = bounded_witness(input_.values, input_.blindings, statement_, input_.bits);
    if (!witness) return withdraw(ClientErrorKind::Refused, "internal: the statement no longer holds");
    seat_first_ = joined.position;
    seat_positions_ = joined.positions;
    heavy_ = heavy(params);
    return compute(
        heavy_, "the positions' bit commitments",
        [params = std::move(params), witness = WipedWitness{std::move(*witness)}, position = joined.position,
         positions = joined.positions]() mutable { return seat(params, witness.w, position, positions); },
        [this, position = joined.position, label = joined.transcript_label,
         token = joined.resume_token](mpc::MpcResult<Seated> seated) -> ClientResult<Step> {
          if (!seated) return withdraw(from_mpc(seated.error()));
          states_ = std::move(seated->states);
          position_ = position;
          label_ = label;
          resume_token_ = token;
          emit({PartyEvent::Kind::Joined, 0, position_, 0, {}, {}, {}});
          return send(batch(std::move(seated->commitments)));
        });
  }

  // The witness of the positions being seated, wiped wherever the work ends.
  struct WipedWitness {
    BoundedWitness w;
    WipedWitness(BoundedWitness witness) : w(std::move(witness)) {}
    WipedWitness(WipedWitness&&) = default;
    ~WipedWitness() { w.wipe(); }
  };
  struct Seated {
    std::vector<State> states;
    std::vector<BitCommitment> commitments;
  };
  // Our positions' states and bit commitments, from `position` on (on the worker when heavy:
  // it reads only what it was given and the process's generators).
  static mpc::MpcResult<Seated> seat(const mpc::SessionParams& params, const BoundedWitness& witness, size_t position,
                                     size_t positions) {
    Seated out;
    for (size_t k = 0; k < positions; ++k) {
      auto party = mpc::PartyAwaitingPosition::create(generators(params.bits, params.padded_m()), pedersen(), params,
                                                      witness.values[k], witness.blindings[k]);
      if (!party) return party.error();
      auto next = std::move(*party).assign_position(position + k);
      if (!next) return next.error();
      out.states.emplace_back(std::move(next->first));
      out.commitments.push_back(next->second);
    }
    return out;
  }

  // Whether a session's steps go off the connection's thread: its generators (built once per
  // process for each size, 21 µs apiece) and the proof the result is checked against grow
  // with n × the padded positions; up to 1,024 of them a step costs a few milliseconds.
  static bool heavy(const mpc::SessionParams& params) { return params.bits * params.padded_m() > 1024; }

  // Whether a first Joined seats us in the statement we stated, from public data only: the
  // same answer whatever our values are. The label is rebuilt from our session id, our bit
  // size and the session's positions; the bounds it names for our values must be ours (the
  // others' are the other parties' business, and public).
  std::optional<ClientError> seat_refusal(const wire::JoinedMsg& joined, const wire::ChannelContext& channel) {
    const auto differs = [&](std::string what) {
      return ClientError{ClientErrorKind::Refused, "the seat differs from our statement: " + what, {}};
    };
    const bool plain = std::all_of(statement_.begin(), statement_.end(), [](const ValueBounds& b) {
      return b == ValueBounds{0, std::nullopt};
    });
    if ((input_.values.size() > 1 || !plain) && channel.dealer_minor_version < 4)
      return differs("the dealer speaks wire 1." + std::to_string(channel.dealer_minor_version) +
                     ": one unbounded value per party (several, or bounds, need 1.4)");
    if (auto few = too_few_parties(joined)) return few;
    if (joined.bits != input_.bits)
      return differs("its bit size is " + std::to_string(joined.bits) + ", we prove " + std::to_string(input_.bits));
    auto terms =
        mpc::read_session_transcript_label(joined.transcript_label, session_id_, joined.bits, joined.session_positions);
    if (!terms)
      return ClientError{
          ClientErrorKind::MaliciousDealer,
          "the transcript label is not this session's (its id, bit size, positions and bounds): " + seat_terms(joined),
          {}};
    // Our values in the session's list: the one whose first position is ours, and the next ones.
    std::vector<ValueBounds> ours;
    if (terms->bounds.empty()) {
      if (!joined.bounds.empty())
        return ClientError{ClientErrorKind::MaliciousDealer,
                           "the seat names bounds its transcript label does not: " + seat_terms(joined),
                           {}};
      ours.assign(joined.positions, ValueBounds{0, std::nullopt});
      if (joined.position + joined.positions > joined.session_positions) ours.clear();
    } else {
      size_t at = 0, value = 0;
      while (value < terms->bounds.size() && at < joined.position) at += terms->bounds[value++].positions();
      if (at == joined.position)
        for (size_t k = value; k < terms->bounds.size() && ours.size() < joined.bounds.size(); ++k)
          ours.push_back(terms->bounds[k]);
      if (joined.bounds != ours)
        return ClientError{ClientErrorKind::MaliciousDealer,
                           "the seat's bounds are not the ones the transcript label names for its positions",
                           {}};
    }
    if (ours.size() != statement_.size())
      return differs("it holds " + std::to_string(ours.size()) + " values, we bring " +
                     std::to_string(statement_.size()));
    if (ours != statement_)
      return differs("its bounds " + wire::bounds_json(ours) + " are not the ones we prove " +
                     wire::bounds_json(statement_));
    if (bounded_positions(ours) != joined.positions)
      return ClientError{ClientErrorKind::MaliciousDealer,
                         "the seat's positions are not the ones its bounds take: " + seat_terms(joined),
                         {}};
    // A successor leaves out at least one party of the session it follows, so a dealer cannot
    // keep us going round successors: a chain is at most as long as our first session's parties.
    if (!chain_.empty() && (joined.session_parties == 0 || joined.session_parties >= session_parties_))
      return ClientError{ClientErrorKind::MaliciousDealer,
                         "a successor of " + std::to_string(joined.session_parties) +
                             " parties does not leave out any of the " + std::to_string(session_parties_) +
                             " of the session it follows",
                         {}};
    // A successor's label names the session we were in after that session's application label.
    if (!chain_.empty() && terms->user_label != successor_user_label_)
      return ClientError{ClientErrorKind::MaliciousDealer,
                         "the successor's transcript label does not name the session it follows (" + chain_.back() +
                             "): " + seat_terms(joined),
                         {}};
    user_label_ = terms->user_label;
    session_parties_ = joined.session_parties;
    session_bounds_ = std::move(terms->bounds);
    return std::nullopt;
  }

  bool restart_in_successor(const ClientError& abort) override {
    // Blamed, or never seated (nothing to go on from): excluded.
    if (!seat_positions_) return false;
    for (size_t p : abort.blamed)
      if (p >= seat_first_ && p < seat_first_ + *seat_positions_) return false;
    states_.clear();  // every state of the session we leave, its secrets wiped as it goes
    successor_user_label_ = user_label_ + " after=" + session_id_;
    seat_positions_.reset();
    position_ = 0;
    label_.clear();
    session_bounds_.clear();
    return true;
  }

  // The public terms of a seat, for an error message.
  static std::string seat_terms(const wire::JoinedMsg& joined) {
    return "position " + std::to_string(joined.position) + " (" + std::to_string(joined.positions) + ") of " +
           std::to_string(joined.session_positions) + ", n = " + std::to_string(joined.bits) + ", label \"" +
           joined.transcript_label.substr(0, 160) + (joined.transcript_label.size() > 160 ? "...\"" : "\"");
  }

  std::string out_of_statement() const {
    return input_.bounds ? "a value lies outside its bounds" : "a value is not below 2^" + std::to_string(input_.bits);
  }

  ClientResult<Step> handle(const mpc::BitChallengeMsg& challenge, const wire::ChannelContext&) {
    return answer<mpc::PartyAwaitingBitChallenge, mpc::PartyAwaitingPolyChallenge>(challenge, "a bit challenge");
  }

  ClientResult<Step> handle(const mpc::PolyChallengeMsg& challenge, const wire::ChannelContext&) {
    return answer<mpc::PartyAwaitingPolyChallenge, mpc::PartyAwaitingResult>(challenge, "a poly challenge");
  }

  ClientResult<Step> handle(wire::ResultMsg& signed_result, const wire::ChannelContext& channel) {
    if (states_.empty()) return protocol_error("a result out of order");
    // Every position's commitment in its place; the proof they share checked once (a seat of
    // 128 positions checked it 128 times: 15 of its 16 s of CPU at 256 positions).
    for (const auto& state : states_) {
      auto* s = std::get_if<mpc::PartyAwaitingResult>(&state);
      if (!s) return protocol_error("a result out of order");
      auto placed = s->check_placement(signed_result.result);
      if (!placed) return from_mpc(placed.error());
    }
    // The result states the session's bounds (none for an unbounded one), and its positions
    // add up under them: what we joined, and what a verifier will be shown.
    if (signed_result.bounds != session_bounds_)
      return ClientError{ClientErrorKind::MaliciousDealer, "the result's bounds are not the session's", {}};
    if (!session_bounds_.empty() && !wire::bounded_statement(signed_result.result, signed_result.bounds))
      return ClientError{
          ClientErrorKind::MaliciousDealer, "the result's positions do not add up under the session's bounds", {}};
    // The signature is what a backend will show later: it must be this dealer's, over this
    // session's result.
    const auto& a = signed_result.attestation;
    if (!a || a->dealer_key != channel.dealer_key || a->session_id != session_id_ ||
        !wire::attestation_valid(signed_result))
      return ClientError{ClientErrorKind::MaliciousDealer, "the result's dealer signature is missing or wrong", {}};
    // The proof checked last: the costly part (the states go with it, and come back).
    auto states = std::move(states_);
    states_.clear();
    return compute(
        heavy_, "the result's check",
        [states = std::move(states), signed_result = std::move(signed_result)]() mutable {
          auto checked = std::get<mpc::PartyAwaitingResult>(states.front()).check_result(signed_result.result);
          return std::tuple{std::move(checked), std::move(states), std::move(signed_result)};
        },
        [this](auto checked) -> ClientResult<Step> {
          auto& [verdict, states, signed_result] = checked;
          states_ = std::move(states);
          if (!verdict) return from_mpc(verdict.error());
          count_bytes_of_connection();
          finish(PartyOutcome{position_, states_.size(), std::move(signed_result.result),
                              std::move(signed_result.bounds), *signed_result.attestation, bytes_sent_, bytes_received_,
                              chain_});
          return Step{{}, true};
        });
  }

  template <class Other>
  ClientResult<Step> handle(const Other&, const wire::ChannelContext&) {
    return protocol_error("an unexpected message from the dealer");
  }

  // A challenge moves every position from Awaiting to Answered; one that comes again after a
  // reconnection (we are already Answered) gets the replies we gave, recomputed by mpc's replay.
  template <class Awaiting, class Answered, class Challenge>
  ClientResult<Step> answer(const Challenge& challenge, const char* what) {
    if (states_.empty()) return protocol_error(std::string(what) + " out of order");
    const bool again = std::holds_alternative<Answered>(states_.front());
    for (const auto& state : states_)
      if (again ? !std::holds_alternative<Answered>(state) : !std::holds_alternative<Awaiting>(state))
        return protocol_error(std::string(what) + " out of order");
    // The states go with the work and come back with the replies.
    auto states = std::move(states_);
    states_.clear();
    return compute(
        heavy_, "the positions' answers",
        [states = std::move(states), challenge, again]() mutable {
          return std::pair{again ? replay<Answered>(states, challenge) : apply<Awaiting>(states, challenge),
                           std::move(states)};
        },
        [this, challenge, again](auto answered) -> ClientResult<Step> {
          states_ = std::move(answered.second);
          if (!answered.first) return from_mpc(answered.first.error());
          const auto kind = again ? PartyEvent::Kind::Replayed : PartyEvent::Kind::Answered;
          emit({kind, 0, position_, round_of(challenge), challenge_hex(challenge), {}, {}});
          return send(std::move(*answered.first));
        });
  }

  // Every position answers, or none does: a refusal leaves the states as they were.
  template <class Awaiting, class Challenge>
  static mpc::MpcResult<wire::Message> apply(std::vector<State>& states, const Challenge& challenge) {
    using Reply = std::decay_t<decltype(std::declval<Awaiting&&>().apply_challenge(challenge).value().second)>;
    std::vector<Reply> replies;
    std::vector<State> next_states;
    for (auto& state : states) {
      auto next = std::move(std::get<Awaiting>(state)).apply_challenge(challenge);
      if (!next) return next.error();
      next_states.emplace_back(std::move(next->first));
      replies.push_back(std::move(next->second));
    }
    states = std::move(next_states);
    return batch(std::move(replies));
  }

  // The replies we gave, again; a different challenge is never answered.
  template <class Answered, class Challenge>
  static mpc::MpcResult<wire::Message> replay(const std::vector<State>& states, const Challenge& challenge) {
    std::vector<std::decay_t<decltype(std::get<Answered>(states.front()).replay(challenge).value())>> again;
    for (const auto& state : states) {
      auto reply = std::get<Answered>(state).replay(challenge);
      if (!reply) return reply.error();
      again.push_back(std::move(*reply));
    }
    return batch(std::move(again));
  }

  // One position's message is sent as a 1.3 party sends it (any dealer reads it); several go
  // in one 1.4 frame.
  template <class Item>
  static wire::Message batch(std::vector<Item> items) {
    if (items.size() == 1) return wire::Message{std::move(items.front())};
    if constexpr (std::is_same_v<Item, BitCommitment>) return wire::Message{wire::BitCommitments{std::move(items)}};
    if constexpr (std::is_same_v<Item, PolyCommitment>) return wire::Message{wire::PolyCommitments{std::move(items)}};
    if constexpr (std::is_same_v<Item, ProofShare>) return wire::Message{wire::ProofShares{std::move(items)}};
  }

  ClientResult<Step> withdraw(ClientErrorKind kind, std::string why) { return withdraw(ClientError{kind, why, {}}); }
  using RejoiningRun::withdraw;

  void wipe_input() {
    if (!input_.values.empty()) sodium_memzero(input_.values.data(), input_.values.size() * sizeof input_.values[0]);
    for (auto& b : input_.blindings) b.wipe();
  }

  void finish_failed(ClientError e) override { finish(std::move(e)); }

  void finish(ClientResult<PartyOutcome> outcome) {
    if (finished_) return;
    finished_ = true;
    wipe_input();
    retry_timer_.cancel();
    emit({PartyEvent::Kind::Done, 0, position_, 0, {}, outcome ? std::string("ok") : describe(outcome.error()), {}});
    handler_(std::move(outcome));
  }

  PartyValues input_;
  std::function<void(ClientResult<PartyOutcome>)> handler_;
  std::vector<State> states_;  // one per position we hold, all in the same round
  bool heavy_ = false;         // the session's steps run off the connection's thread
  std::string label_;
  // Our seat as the first Joined of a session named it (a successor's may differ), and that
  // session's application label: a successor's must be it, then " after=<that session>".
  size_t seat_first_ = 0;
  std::optional<size_t> seat_positions_;
  std::string user_label_, successor_user_label_;
  size_t session_parties_ = 0;               // as the last session's Joined said (1.7; 0 from an older dealer)
  std::vector<ValueBounds> statement_;       // what we prove: one per value ({0, none}: below 2^bits)
  std::vector<ValueBounds> session_bounds_;  // every value's, as the label names them (empty: none)
};

}  // namespace

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          PartyValues values, const Options& options, const LinkEmulation& link,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  auto run = std::make_shared<PartyRun>(ioc, dealer, session_id, std::move(values), options, link, std::move(handler));
  if (auto why = run->check_input()) return run->refuse_now(std::move(*why));
  run->connect();
}

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          PartyValues values, const Options& options,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  async_join_and_prove(ioc, dealer, session_id, std::move(values), options, LinkEmulation{}, std::move(handler));
}

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id, uint64_t value,
                          const Scalar& blinding, const Options& options, const LinkEmulation& link,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  async_join_and_prove(ioc, dealer, session_id, PartyValues{{value}, {blinding}, std::nullopt}, options, link,
                       std::move(handler));
}

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id, uint64_t value,
                          const Scalar& blinding, const Options& options,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  async_join_and_prove(ioc, dealer, session_id, value, blinding, options, LinkEmulation{}, std::move(handler));
}

}  // namespace bp::client
