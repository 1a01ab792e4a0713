// A party's side of a gadget session (wire 1.5): mpc's R1CS type-states between frames, over
// a RejoiningRun's connections. Each round's broadcast (every seat's message of the round
// before) is answered once; the same broadcast again (after a reconnection, from this replica
// or one that rebuilt the session) gets the same reply byte for byte, and a different one for
// a round already answered is refused: the party's blinded wires are never shown under two
// sets of challenges.
#include <sodium.h>

#include <array>
#include <boost/asio/post.hpp>
#include <memory>
#include <variant>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"
#include "bp/hex.hpp"
#include "bp/mpc/limits.hpp"
#include "bp/mpc/r1cs.hpp"
#include "bp/mpc/session.hpp"
#include "conversation.hpp"
#include "rejoining_run.hpp"
#include "signing.hpp"

namespace bp::client {

namespace asio = boost::asio;
using detail::from_mpc;
using detail::protocol_error;
using detail::Step;

namespace {

ClientError malicious(std::string why) { return {ClientErrorKind::MaliciousDealer, std::move(why), {}}; }

// What a PartyEvent names as a round's challenge: the broadcast it was drawn from, hashed
// (the challenges themselves never leave the party's transcript).
std::string broadcast_hex(const std::vector<uint8_t>& frame) {
  std::array<uint8_t, 32> digest{};
  crypto_generichash(digest.data(), digest.size(), frame.data(), frame.size(), nullptr, 0);
  return to_hex(digest);
}

class GadgetRun final : public detail::RejoiningRun {
 public:
  GadgetRun(asio::io_context& ioc, Endpoint dealer, std::string session_id, Options options, LinkEmulation link,
            std::function<void(ClientResult<GadgetOutcome>)> handler)
      : RejoiningRun(ioc, std::move(dealer), std::move(session_id), std::move(options), link),
        handler_(std::move(handler)) {}

  // The gadget reads as one item, the values are one per commitment and satisfy it: checked
  // here, before any connection (the caller learns the answer anyway). Nothing after this
  // looks at the values.
  std::optional<ClientError> check_input(PartyGadget input) {
    const auto refused = [](std::string why) { return ClientError{ClientErrorKind::Refused, std::move(why), {}}; };
    auto wipe = [&] {
      if (!input.values.empty()) sodium_memzero(input.values.data(), input.values.size() * sizeof input.values[0]);
      for (auto& b : input.blindings) b.wipe();
    };
    auto list = GadgetList::parse(input.gadget);
    if (!list || list->items().size() != 1) {
      wipe();
      return refused("the gadget is not one gadget list item" + (list ? std::string() : ": " + list.error()));
    }
    gadget_ = list->items().front();
    if (input.values.size() != gadget_.commitments() || input.blindings.size() != input.values.size()) {
      wipe();
      return refused(gadget_.text() + " takes " + std::to_string(gadget_.commitments()) +
                     " values, each with a blinding");
    }
    auto seat = mpc::R1CSPartyAwaitingSeat::create(gadget_, input.values, input.blindings);
    if (!seat) {
      wipe();
      return from_mpc(seat.error());
    }
    state_ = std::move(*seat);
    // Kept until the run ends (wiped then): a successor session takes a new seat for them.
    values_ = std::move(input.values);
    blindings_ = std::move(input.blindings);
    return std::nullopt;
  }

  void refuse_now(ClientError error) {
    asio::post(strand_,
               [self = self_as<GadgetRun>(), error = std::move(error)]() mutable { self->finish(std::move(error)); });
  }

  wire::Message opening(const wire::ChannelContext& channel) override {
    wire::JoinSessionMsg join = join_message(channel);
    join.values = static_cast<uint32_t>(gadget_.commitments());
    join.gadget = gadget_.text();
    join.party_auth = detail::signed_by(
        options_.identity, [&](const wire::PublicKey& key) { return wire::join_statement(channel, join, key); });
    return wire::Message{std::move(join)};
  }

  ClientResult<Step> on_message(wire::Message message, const wire::ChannelContext& channel) override {
    return std::visit([&](auto& m) { return handle(m, channel); }, message);
  }

 private:
  using State =
      std::variant<std::monostate, mpc::R1CSPartyAwaitingSeat, mpc::R1CSPartyAwaitingFirstPhases,
                   mpc::R1CSPartyAwaitingSecondPhases, mpc::R1CSPartyAwaitingPolys, mpc::R1CSPartyAwaitingResult>;

  ClientResult<Step> handle(const wire::JoinedMsg& joined, const wire::ChannelContext& channel) {
    end_outage();
    if (!std::holds_alternative<mpc::R1CSPartyAwaitingSeat>(state_)) {
      // Our seat back after a reconnection: the same seat of the same session, our last
      // message again.
      if (joined.position != position_ || joined.gadgets != list_text_ || joined.transcript_label != label_)
        return malicious("resumed in another seat or session: seat " + std::to_string(joined.position));
      resume_token_ = joined.resume_token;
      emit({PartyEvent::Kind::Resumed, 0, position_, 0, {}, {}, {}});
      return send_last_again();
    }
    if (auto refusal = seat_refusal(joined, channel)) return withdraw(std::move(*refusal));
    auto seat = std::move(std::get<mpc::R1CSPartyAwaitingSeat>(state_));
    state_ = std::monostate{};  // the work owns the seat until it is done
    return compute(
        heavy_, "the seat's first phase",
        [seat = std::move(seat), list = *list_, item = joined.position, label = label_]() mutable {
          return std::move(seat).take_seat(list, item, label);
        },
        [this, position = joined.position, token = joined.resume_token](auto first) -> ClientResult<Step> {
          if (!first) return withdraw(from_mpc(first.error()));
          state_ = std::move(first->first);
          position_ = position;
          resume_token_ = token;
          emit({PartyEvent::Kind::Joined, 0, position_, 0, {}, {}, {}});
          return send(wire::Message{std::move(first->second)});
        });
  }

  // Whether a first Joined seats us as we stated, from public data only: a gadget session's
  // list, canonical, with our gadget in our seat, and a label this session's id and that list
  // rebuild (only the application's label is read from it).
  std::optional<ClientError> seat_refusal(const wire::JoinedMsg& joined, const wire::ChannelContext& channel) {
    if (joined.gadgets.empty())
      return ClientError{ClientErrorKind::Refused,
                         "the seat is not a gadget seat (a range session, or a dealer before wire 1.5: it speaks 1." +
                             std::to_string(channel.dealer_minor_version) + ")",
                         {}};
    if (auto few = too_few_parties(joined)) return few;
    auto list = GadgetList::parse(joined.gadgets);
    if (!list || list->text() != joined.gadgets || list->items().size() != joined.session_positions ||
        joined.position >= list->items().size())
      return malicious("the seat's gadget list does not read as the session's seats");
    // Before anything is built for it: the dealer chose the list's size.
    if (auto over = mpc::gadget_list_over_limits(*list))
      return malicious("the seat's gadget list is too large: " + *over);
    if (list->items()[joined.position].text() != gadget_.text())
      return ClientError{ClientErrorKind::Refused,
                         "the seat differs from our statement: seat " + std::to_string(joined.position) + " proves " +
                             list->items()[joined.position].text() + ", we prove " + gadget_.text(),
                         {}};
    auto user_label = mpc::read_gadget_session_label(joined.transcript_label, session_id_, list->text());
    if (!user_label) return malicious("the transcript label is not this session's (its id and gadget list)");
    // A successor leaves out at least one party and names the session it follows.
    if (!chain_.empty() && (joined.session_parties == 0 || joined.session_parties >= session_parties_))
      return malicious("a successor of " + std::to_string(joined.session_parties) +
                       " parties does not leave out any of the " + std::to_string(session_parties_) +
                       " of the session it follows");
    if (!chain_.empty() && *user_label != successor_user_label_)
      return malicious("the successor's transcript label does not name the session it follows (" + chain_.back() + ")");
    user_label_ = *user_label;
    session_parties_ = joined.session_parties;
    seat_ = joined.position;
    seated_ = true;
    label_ = mpc::gadget_session_label(session_id_, list->text(), *user_label);
    list_text_ = list->text();
    heavy_ = heavy(*list);
    list_ = std::move(*list);
    return std::nullopt;
  }

  // Whether a session's steps go off the connection's thread: a list of a few dozen
  // multipliers and commitments costs the party a few milliseconds a step; past that, the
  // generators and every seat's shares make a step cost what the deadline must be able to cut.
  static bool heavy(const GadgetList& list) {
    return list.generators_capacity() > kInlineGenerators || list.commitments() > kInlineCommitments;
  }
  static constexpr size_t kInlineGenerators = 128, kInlineCommitments = 64;

  ClientResult<Step> handle(wire::R1CSFirstPhases& all, const wire::ChannelContext&) {
    auto frame = wire::encode(wire::Message{all});
    return answer<mpc::R1CSPartyAwaitingFirstPhases>(0, std::move(frame), std::move(all.items));
  }
  ClientResult<Step> handle(wire::R1CSSecondPhases& all, const wire::ChannelContext&) {
    auto frame = wire::encode(wire::Message{all});
    return answer<mpc::R1CSPartyAwaitingSecondPhases>(1, std::move(frame), std::move(all.items));
  }
  ClientResult<Step> handle(wire::R1CSPolyShares& all, const wire::ChannelContext&) {
    auto frame = wire::encode(wire::Message{all});
    return answer<mpc::R1CSPartyAwaitingPolys>(2, std::move(frame), std::move(all.items));
  }

  // Round `round`'s broadcast: answered if we await it, the same reply again if we answered
  // exactly this one, refused otherwise.
  template <class Awaiting, class Items>
  ClientResult<Step> answer(size_t round, std::vector<uint8_t> frame, Items items) {
    if (!answered_[round].empty()) {
      if (frame != answered_[round]) return malicious("a second, different broadcast for a round already answered");
      emit({PartyEvent::Kind::Replayed, 0, position_, static_cast<int>(round + 1), broadcast_hex(frame), {}, {}});
      return send(replies_[round]);
    }
    auto* awaiting = std::get_if<Awaiting>(&state_);
    if (!awaiting) return protocol_error("a round's broadcast out of order");
    Awaiting state = std::move(*awaiting);
    state_ = std::monostate{};
    return compute(
        heavy_, "a round's answer",
        [state = std::move(state), items = std::move(items)]() mutable { return std::move(state).apply(items); },
        [this, round, frame = std::move(frame)](auto next) mutable -> ClientResult<Step> {
          if (!next) return from_mpc(next.error());
          state_ = std::move(next->first);
          emit({PartyEvent::Kind::Answered, 0, position_, static_cast<int>(round + 1), broadcast_hex(frame), {}, {}});
          answered_[round] = std::move(frame);
          replies_[round] = wire::Message{std::move(next->second)};
          return send(replies_[round]);
        });
  }

  ClientResult<Step> handle(wire::R1CSResultMsg& result, const wire::ChannelContext& channel) {
    auto* awaiting = std::get_if<mpc::R1CSPartyAwaitingResult>(&state_);
    if (!awaiting) return protocol_error("a result out of order");
    if (result.gadgets != list_text_ || result.label != label_)
      return malicious("the result is not over the session's gadget list and label");
    const auto& a = result.attestation;
    if (!a || a->dealer_key != channel.dealer_key || a->session_id != session_id_ || !wire::attestation_valid(result))
      return malicious("the result's dealer signature is missing or wrong");
    // The proof checked last: the costly part.
    auto state = std::move(*awaiting);
    state_ = std::monostate{};
    return compute(
        heavy_, "the result's check",
        [state = std::move(state), result = std::move(result)]() mutable {
          auto checked = state.check_result(result.commitments, result.proof);
          return std::pair{std::move(checked), std::move(result)};
        },
        [this](auto checked) -> ClientResult<Step> {
          if (!checked.first) return from_mpc(checked.first.error());
          count_bytes_of_connection();
          finish(GadgetOutcome{position_, std::move(checked.second), bytes_sent_, bytes_received_, chain_});
          return Step{{}, true};
        });
  }

  template <class Other>
  ClientResult<Step> handle(const Other&, const wire::ChannelContext&) {
    return protocol_error("an unexpected message from the dealer");
  }

  void finish_failed(ClientError e) override { finish(std::move(e)); }
  // A successor (its operator let the session go on without its culprits) drops our item only
  // if we were blamed; otherwise we take a new seat there with a fresh state for our values.
  bool restart_in_successor(const ClientError& abort) override {
    if (!seated_) return false;
    for (size_t p : abort.blamed)
      if (p == seat_) return false;
    auto seat = mpc::R1CSPartyAwaitingSeat::create(gadget_, values_, blindings_);
    if (!seat) return false;
    state_ = std::move(*seat);  // every state of the session we leave goes with this
    successor_user_label_ = user_label_ + " after=" + session_id_;
    seated_ = false;
    position_ = 0;
    list_.reset();
    list_text_.clear();
    label_.clear();
    answered_ = {};
    replies_ = {};
    return true;
  }

  void finish(ClientResult<GadgetOutcome> outcome) {
    if (finished_) return;
    finished_ = true;
    retry_timer_.cancel();
    state_ = std::monostate{};  // its secrets go now
    if (!values_.empty()) sodium_memzero(values_.data(), values_.size() * sizeof values_[0]);
    for (auto& b : blindings_) b.wipe();
    emit({PartyEvent::Kind::Done, 0, position_, 0, {}, outcome ? std::string("ok") : describe(outcome.error()), {}});
    handler_(std::move(outcome));
  }

  std::function<void(ClientResult<GadgetOutcome>)> handler_;
  GadgetItem gadget_;
  State state_;
  std::optional<GadgetList> list_;
  std::string list_text_, label_;
  bool heavy_ = false;                            // the session's steps run off the connection's thread
  std::array<std::vector<uint8_t>, 3> answered_;  // each round's broadcast we answered, encoded
  std::array<wire::Message, 3> replies_;          // and what we answered it with
  std::vector<uint64_t> values_;                  // ours, kept for a successor's seat
  std::vector<Scalar> blindings_;
  // Our seat once a first Joined was accepted, and that session's application label and
  // parties: a successor's label must be it then " after=<that session>", with fewer parties.
  bool seated_ = false;
  size_t seat_ = 0, session_parties_ = 0;
  std::string user_label_, successor_user_label_;
};

}  // namespace

void async_join_gadget_session(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                               PartyGadget gadget, const Options& options, const LinkEmulation& link,
                               std::function<void(ClientResult<GadgetOutcome>)> handler) {
  auto run = std::make_shared<GadgetRun>(ioc, dealer, session_id, options, link, std::move(handler));
  if (auto why = run->check_input(std::move(gadget))) return run->refuse_now(std::move(*why));
  run->connect();
}

void async_join_gadget_session(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                               PartyGadget gadget, const Options& options,
                               std::function<void(ClientResult<GadgetOutcome>)> handler) {
  async_join_gadget_session(ioc, dealer, session_id, std::move(gadget), options, LinkEmulation{}, std::move(handler));
}

}  // namespace bp::client
