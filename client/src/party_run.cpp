// A party's side of a session: the protocol state between frames (mpc's type-states) and
// the connections it takes. When a connection drops, or the dealer asks it to join again (a
// replica hands the session over, or restarts), it connects again within its reconnect
// policy, joins with the seat's resume token (and its key), resends the last message it
// sent, and answers a repeated challenge with the reply it gave before (mpc's replay); a
// different challenge for a round it answered is refused, so the session goes on wherever
// it is rebuilt and no secret is ever answered twice.
#include <sodium.h>

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <variant>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"
#include "bp/hex.hpp"
#include "bp/mpc/party.hpp"
#include "conversation.hpp"
#include "signing.hpp"

namespace bp::client {

namespace asio = boost::asio;
using detail::protocol_error;
using detail::Step;

namespace {

// Generators per (n, m), built once per process and kept: a party may run many sessions.
const BulletproofGens& generators(size_t n, size_t m) {
  static std::mutex mutex;
  static std::map<std::pair<size_t, size_t>, std::unique_ptr<BulletproofGens>> cache;
  std::lock_guard lock(mutex);
  auto& slot = cache[{n, m}];
  if (!slot) slot = std::make_unique<BulletproofGens>(n, m);
  return *slot;
}

const PedersenGens& pedersen() {
  static const PedersenGens pc;
  return pc;
}

ClientError from_mpc(const mpc::MpcError& e) {
  const auto kind =
      e.kind == mpc::MpcErrorKind::MaliciousDealer ? ClientErrorKind::MaliciousDealer : ClientErrorKind::Refused;
  return {kind, mpc::describe(e), e.blamed};
}

std::string hex_of(std::initializer_list<const Scalar*> scalars) {
  std::string out;
  for (const Scalar* s : scalars) out += to_hex(s->to_bytes());
  return out;
}
std::string challenge_hex(const mpc::BitChallengeMsg& c) { return hex_of({&c.y, &c.z}); }
std::string challenge_hex(const mpc::PolyChallengeMsg& c) { return hex_of({&c.x}); }
int round_of(const mpc::BitChallengeMsg&) { return 1; }
int round_of(const mpc::PolyChallengeMsg&) { return 2; }

// The next wait of a policy's backoff: `base` with up to 20% either way, drawn from libsodium.
std::chrono::milliseconds jittered(std::chrono::milliseconds base) {
  const auto spread = static_cast<uint32_t>(base.count() / 5);
  if (spread == 0) return base;
  return base - std::chrono::milliseconds(spread) + std::chrono::milliseconds(randombytes_uniform(2 * spread + 1));
}

class PartyRun final : public detail::Dialogue, public std::enable_shared_from_this<PartyRun> {
 public:
  PartyRun(asio::io_context& ioc, Endpoint dealer, std::string session_id, uint64_t value, const Scalar& blinding,
           Options options, LinkEmulation link, std::function<void(ClientResult<PartyOutcome>)> handler)
      : ioc_(ioc),
        dealer_(std::move(dealer)),
        session_id_(std::move(session_id)),
        value_(value),
        blinding_(blinding),
        options_(std::move(options)),
        link_(link),
        handler_(std::move(handler)),
        retry_timer_(ioc),
        seat_token_(wire::kResumeTokenBytes) {
    randombytes_buf(seat_token_.data(), seat_token_.size());
  }
  ~PartyRun() override { blinding_.wipe(); }

  void connect() {
    emit({PartyEvent::Kind::Connecting, outage_connections_, position_, 0, {}, {}, {}});
    conversation_ = detail::converse(ioc_, dealer_, session_id_, options_, link_, shared_from_this());
  }

  wire::Message opening(const wire::ChannelContext& channel) override {
    wire::JoinSessionMsg join{session_id_, resume_token_, std::nullopt, {}};
    // Before we have a seat, we name the token we want for it (a 1.3 dealer takes it): a join
    // again after a Joined lost on the way then finds the seat it made.
    if (resume_token_.empty() && channel.dealer_minor_version >= 3) join.seat_token = seat_token_;
    join.party_auth = detail::signed_by(
        options_.identity, [&](const wire::PublicKey& key) { return wire::join_statement(channel, join, key); });
    return wire::Message{std::move(join)};
  }

  ClientResult<Step> on_message(wire::Message message, const wire::ChannelContext& channel) override {
    return std::visit([&](auto& m) { return handle(m, channel); }, message);
  }

  void on_fail(ClientError e) override {
    count_bytes_of_connection();
    const auto& policy = options_.reconnect;
    const bool may_pass = e.transient || e.retry_after_ms != 0;
    if (!may_pass || finished_ || policy.attempts == 0) return finish(std::move(e));
    const auto now = std::chrono::steady_clock::now();
    if (!outage_started_) {
      outage_started_ = now;
      outage_connections_ = 0;
      next_delay_ = policy.first_delay;
    }
    const auto out_for = std::chrono::duration_cast<std::chrono::milliseconds>(now - *outage_started_);
    if (outage_connections_ >= policy.attempts || out_for >= policy.give_up_after) {
      emit({PartyEvent::Kind::GaveUp, outage_connections_, position_, 0, {}, describe(e), {}});
      return finish(ClientError{ClientErrorKind::Unavailable,
                                "gave up after " + std::to_string(outage_connections_) + " reconnections in " +
                                    std::to_string(out_for.count()) + " ms: " + describe(e),
                                e.blamed});
    }
    ++outage_connections_;
    const auto delay = std::max(jittered(next_delay_), std::chrono::milliseconds(e.retry_after_ms));
    next_delay_ = std::min(policy.max_delay, next_delay_ * 2);
    emit({PartyEvent::Kind::Reconnecting, outage_connections_, position_, 0, {}, describe(e), delay});
    retry_timer_.expires_after(delay);
    retry_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->connect();
    });
  }

 private:
  using State = std::variant<std::monostate, mpc::PartyAwaitingBitChallenge, mpc::PartyAwaitingPolyChallenge,
                             mpc::PartyAwaitingResult>;

  ClientResult<Step> handle(const wire::JoinedMsg& joined, const wire::ChannelContext&) {
    outage_started_.reset();  // a seat held again ends the outage
    if (!std::holds_alternative<std::monostate>(state_)) {
      // Our seat back after a reconnection (on this replica or another that rebuilt the
      // session): the same seat of the same session, and our last message again.
      if (joined.position != position_ || joined.transcript_label != label_)
        return protocol_error("resumed at another position or in another session");
      resume_token_ = joined.resume_token;
      emit({PartyEvent::Kind::Resumed, 0, position_, 0, {}, {}, {}});
      return last_sent_ ? send(*last_sent_) : Step{};
    }
    const mpc::SessionParams params{joined.bits, joined.parties, joined.transcript_label};
    auto party = mpc::PartyAwaitingPosition::create(generators(params.n, params.padded_m()), pedersen(), params, value_,
                                                    blinding_);
    if (!party) return from_mpc(party.error());
    auto next = std::move(*party).assign_position(joined.position);
    if (!next) return from_mpc(next.error());
    position_ = joined.position;
    label_ = joined.transcript_label;
    resume_token_ = joined.resume_token;
    state_ = std::move(next->first);
    emit({PartyEvent::Kind::Joined, 0, position_, 0, {}, {}, {}});
    return send(next->second);
  }

  ClientResult<Step> handle(const mpc::BitChallengeMsg& challenge, const wire::ChannelContext&) {
    return answer<mpc::PartyAwaitingBitChallenge, mpc::PartyAwaitingPolyChallenge>(challenge, "a bit challenge");
  }

  ClientResult<Step> handle(const mpc::PolyChallengeMsg& challenge, const wire::ChannelContext&) {
    return answer<mpc::PartyAwaitingPolyChallenge, mpc::PartyAwaitingResult>(challenge, "a poly challenge");
  }

  ClientResult<Step> handle(wire::ResultMsg& signed_result, const wire::ChannelContext& channel) {
    auto* s = std::get_if<mpc::PartyAwaitingResult>(&state_);
    if (!s) return protocol_error("a result out of order");
    auto checked = s->check_result(signed_result.result);
    if (!checked) return from_mpc(checked.error());
    // The signature is what a backend will show later: it must be this dealer's, over this
    // session's result.
    const auto& a = signed_result.attestation;
    if (!a || a->dealer_key != channel.dealer_key || a->session_id != session_id_ ||
        !wire::attestation_valid(signed_result))
      return ClientError{ClientErrorKind::MaliciousDealer, "the result's dealer signature is missing or wrong", {}};
    count_bytes_of_connection();
    finish(PartyOutcome{position_, std::move(signed_result.result), *a, bytes_sent_, bytes_received_});
    return Step{{}, true};
  }

  template <class Other>
  ClientResult<Step> handle(const Other&, const wire::ChannelContext&) {
    return protocol_error("an unexpected message from the dealer");
  }

  // A challenge moves Awaiting to Answered; one that comes again after a reconnection
  // (we are already Answered) gets the reply we gave, recomputed by mpc's replay.
  template <class Awaiting, class Answered, class Challenge>
  ClientResult<Step> answer(const Challenge& challenge, const char* what) {
    if (auto* answered = std::get_if<Answered>(&state_)) {
      auto again = answered->replay(challenge);
      if (!again) return from_mpc(again.error());  // a different challenge: never answered
      emit({PartyEvent::Kind::Replayed, 0, position_, round_of(challenge), challenge_hex(challenge), {}, {}});
      return send(std::move(*again));
    }
    auto* awaiting = std::get_if<Awaiting>(&state_);
    if (!awaiting) return protocol_error(std::string(what) + " out of order");
    auto next = std::move(*awaiting).apply_challenge(challenge);
    if (!next) return from_mpc(next.error());
    state_ = std::move(next->first);
    emit({PartyEvent::Kind::Answered, 0, position_, round_of(challenge), challenge_hex(challenge), {}, {}});
    return send(std::move(next->second));
  }

  void emit(PartyEvent event) const {
    if (options_.on_event) options_.on_event(event);
  }

  Step send(wire::Message m) {
    last_sent_ = m;
    return Step{{std::move(m)}, false};
  }

  // The bytes of the connection that just ended, added to the run's.
  void count_bytes_of_connection() {
    if (auto c = conversation_.lock()) {
      bytes_sent_ += c->bytes_sent();
      bytes_received_ += c->bytes_received();
    }
    conversation_.reset();
  }

  void finish(ClientResult<PartyOutcome> outcome) {
    if (finished_) return;
    finished_ = true;
    retry_timer_.cancel();
    emit({PartyEvent::Kind::Done, 0, position_, 0, {}, outcome ? std::string("ok") : describe(outcome.error()), {}});
    handler_(std::move(outcome));
  }

  asio::io_context& ioc_;
  Endpoint dealer_;
  std::string session_id_;
  uint64_t value_;
  Scalar blinding_;
  Options options_;
  LinkEmulation link_;
  std::function<void(ClientResult<PartyOutcome>)> handler_;
  asio::steady_timer retry_timer_;
  std::weak_ptr<detail::Conversation> conversation_;
  State state_;
  size_t position_ = 0;
  std::string label_;
  std::vector<uint8_t> seat_token_;  // picked once: the seat we ask for, until a Joined names ours
  std::vector<uint8_t> resume_token_;
  std::optional<wire::Message> last_sent_;
  // The outage we are in, if any: since when, and how many connections it has taken.
  std::optional<std::chrono::steady_clock::time_point> outage_started_;
  unsigned outage_connections_ = 0;
  std::chrono::milliseconds next_delay_{0};
  size_t bytes_sent_ = 0, bytes_received_ = 0;  // of the connections that ended
  bool finished_ = false;
};

}  // namespace

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id, uint64_t value,
                          const Scalar& blinding, const Options& options, const LinkEmulation& link,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  std::make_shared<PartyRun>(ioc, dealer, session_id, value, blinding, options, link, std::move(handler))->connect();
}

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id, uint64_t value,
                          const Scalar& blinding, const Options& options,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  async_join_and_prove(ioc, dealer, session_id, value, blinding, options, LinkEmulation{}, std::move(handler));
}

}  // namespace bp::client
