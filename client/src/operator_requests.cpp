// An operator's requests: open a session (CreateSession) and list or cancel its sessions
// (ManageSessions). Each is one signed message and one answer on its own connection (a new
// one for each try of a request the dealer asked us to make again later).
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>

#include "bp/client/party_client.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "conversation.hpp"
#include "signing.hpp"

namespace bp::client {

namespace asio = boost::asio;
using detail::protocol_error;
using detail::Step;

namespace {

// One request, one answer: `build(channel)` makes the request (signing it for this
// connection), `accept(message)` turns the dealer's answer into the caller's result.
template <class Answer, class Build, class Accept>
class RequestReply final : public detail::Dialogue {
 public:
  RequestReply(Build build, Accept accept, std::function<void(ClientResult<Answer>)> done)
      : build_(std::move(build)), accept_(std::move(accept)), done_(std::move(done)) {}

  wire::Message opening(const wire::ChannelContext& channel) override { return build_(channel); }

  ClientResult<Step> on_message(wire::Message message, const wire::ChannelContext&) override {
    ClientResult<Answer> answer = accept_(message);
    if (!answer) return answer.error();
    done_(std::move(*answer));
    return Step{{}, true};
  }

  void on_fail(ClientError error) override { done_(std::move(error)); }

 private:
  Build build_;
  Accept accept_;
  std::function<void(ClientResult<Answer>)> done_;
};

// A request whose WebSocket upgrade the dealer declined for now, naming when to come back
// (HTTP 429 for a backend opening many connections at once; 503 for a dealer at capacity or
// without its record; a balancer's 502 or 504): the request was never read, so it is sent
// again then, within the caller's one deadline. Declined to the end, that error (with when)
// is the answer; any other error at once.
template <class Answer, class Build, class Accept>
class RetryingRequest final : public std::enable_shared_from_this<RetryingRequest<Answer, Build, Accept>> {
 public:
  RetryingRequest(asio::io_context& ioc, Endpoint dealer, std::string session_id, Options options, Build build,
                  Accept accept, std::function<void(ClientResult<Answer>)> done)
      : strand_(asio::make_strand(ioc)),
        timer_(strand_),
        dealer_(std::move(dealer)),
        session_id_(std::move(session_id)),
        options_(std::move(options)),
        deadline_(std::chrono::steady_clock::now() + options_.timeout),
        build_(std::move(build)),
        accept_(std::move(accept)),
        done_(std::move(done)) {}

  void attempt() {
    Options once = options_;
    once.timeout =
        std::max(std::chrono::milliseconds(1),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now()));
    auto dialogue = std::make_shared<RequestReply<Answer, Build, Accept>>(
        build_, accept_,
        [self = this->shared_from_this()](ClientResult<Answer> answer) { self->answered(std::move(answer)); });
    detail::converse(strand_, dealer_, session_id_, once, LinkEmulation{}, std::move(dialogue));
  }

 private:
  void answered(ClientResult<Answer> answer) {
    if (!answer && answer.error().retry_after_ms != 0) {
      const auto wait = std::chrono::milliseconds(answer.error().retry_after_ms);
      if (std::chrono::steady_clock::now() + wait < deadline_) {
        timer_.expires_after(wait);
        timer_.async_wait([self = this->shared_from_this()](boost::system::error_code ec) {
          if (!ec) self->attempt();
        });
        return;
      }
    }
    done_(std::move(answer));
  }

  detail::Strand strand_;
  asio::steady_timer timer_;
  Endpoint dealer_;
  std::string session_id_;
  Options options_;
  std::chrono::steady_clock::time_point deadline_;
  Build build_;
  Accept accept_;
  std::function<void(ClientResult<Answer>)> done_;
};

template <class Answer, class Build, class Accept>
void request(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id, const Options& options,
             Build build, Accept accept, std::function<void(ClientResult<Answer>)> done) {
  std::make_shared<RetryingRequest<Answer, Build, Accept>>(ioc, dealer, session_id, options, std::move(build),
                                                           std::move(accept), std::move(done))
      ->attempt();
}

}  // namespace

void async_create_session(asio::io_context& ioc, const Endpoint& dealer, const SessionRequest& request_in,
                          const Options& options, std::function<void(ClientResult<SessionInfo>)> handler) {
  const std::string session_id = request_in.session_id.empty() ? wire::random_session_id() : request_in.session_id;
  auto build = [r = request_in, session_id, identity = options.identity](const wire::ChannelContext& channel) {
    wire::CreateSessionMsg create{
        r.bits,     r.parties,          r.label,  r.round_timeout_ms, r.allowed_parties, std::nullopt,
        session_id, r.values_per_party, r.bounds, r.gadgets};
    if (!r.gadgets.empty()) create.bits = 0;  // a gadget session states none
    create.min_parties = r.min_parties;
    create.join_window_ms = r.join_window_ms;
    create.gadget_successors = r.gadget_successors;
    create.operator_auth = detail::signed_by(
        identity, [&](const wire::PublicKey& key) { return wire::create_statement(channel, create, key); });
    return wire::Message{std::move(create)};
  };
  // The label states the terms: a dealer before 1.4 would drop the values and bounds it
  // does not know and open a session of one unbounded value per party.
  size_t values = request_in.values_per_party.empty() ? request_in.parties : 0;
  for (uint32_t k : request_in.values_per_party) values += k;
  const size_t positions = request_in.bounds.empty() ? values : bounded_positions(request_in.bounds);
  // A gadget session's label names the list as the dealer reads it (canonical); the dealer
  // refuses a list it cannot read, so a label over another list is another session's.
  std::string expected_label;
  if (!request_in.gadgets.empty()) {
    auto list = GadgetList::parse(request_in.gadgets);
    expected_label = mpc::gadget_session_label(session_id, list ? list->text() : request_in.gadgets, request_in.label);
  } else {
    expected_label =
        mpc::session_transcript_label(session_id, request_in.bits, positions, request_in.label, request_in.bounds);
  }
  auto accept = [session_id, expected_label](const wire::Message& message) -> ClientResult<SessionInfo> {
    auto* created = std::get_if<wire::SessionCreatedMsg>(&message);
    if (!created) return protocol_error("expected SessionCreated");
    if (created->session_id != session_id) return protocol_error("the dealer created another session id than ours");
    if (created->transcript_label != expected_label)
      return protocol_error("the dealer opened the session on other terms (its label is \"" +
                            created->transcript_label + "\"): a dealer before wire 1.4 holds one value per party");
    return SessionInfo{created->session_id, created->transcript_label};
  };
  request<SessionInfo>(ioc, dealer, session_id, options, std::move(build), std::move(accept), std::move(handler));
}

void async_manage_sessions(asio::io_context& ioc, const Endpoint& dealer, const std::vector<std::string>& cancel,
                           const Options& options, std::function<void(ClientResult<SessionListing>)> handler) {
  auto build = [cancel, identity = options.identity](const wire::ChannelContext& channel) {
    wire::ManageSessionsMsg manage{cancel, std::nullopt};
    manage.operator_auth = detail::signed_by(
        identity, [&](const wire::PublicKey& key) { return wire::manage_statement(channel, manage, key); });
    return wire::Message{std::move(manage)};
  };
  auto accept = [](const wire::Message& message) -> ClientResult<SessionListing> {
    auto* list = std::get_if<wire::SessionListMsg>(&message);
    if (!list) return protocol_error("expected SessionList");
    return SessionListing{list->sessions, list->not_cancelled};
  };
  request<SessionListing>(ioc, dealer, "", options, std::move(build), std::move(accept), std::move(handler));
}

}  // namespace bp::client
