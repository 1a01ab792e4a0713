#include "bp/client/party_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "bp/mpc/party.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"
#include "bp/json.hpp"

namespace bp::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

std::optional<Endpoint> parse_endpoint(std::string_view url) {
  bool tls = false;
  if (url.substr(0, 6) == "wss://") {
    tls = true;
    url.remove_prefix(6);
  } else if (url.substr(0, 5) == "ws://") {
    url.remove_prefix(5);
  } else {
    return std::nullopt;
  }
  if (!url.empty() && url.back() == '/') url.remove_suffix(1);
  std::string prefix;
  if (const auto slash = url.find('/'); slash != std::string_view::npos) {
    prefix = std::string(url.substr(slash));
    url = url.substr(0, slash);
    if (prefix.find_first_of(" ?#") != std::string::npos) return std::nullopt;
  }
  const auto colon = url.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const auto port_text = url.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  const unsigned long port = std::stoul(std::string(port_text));
  if (port == 0 || port > 65535) return std::nullopt;
  return Endpoint{std::string(url.substr(0, colon)), static_cast<uint16_t>(port), tls, prefix};
}

std::string describe(const ClientError& e) {
  static constexpr const char* kNames[] = {"transport", "timeout", "protocol", "abort", "malicious dealer", "refused"};
  std::string out = std::string(kNames[static_cast<int>(e.kind)]) + ": " + e.detail;
  if (e.kind == ClientErrorKind::Aborted || !e.blamed.empty()) {
    out += " blamed=[";
    out += comma_separated(e.blamed);
    out += "]";
  }
  return out;
}

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

// What to do after a message: send frames, keep reading, or finish.
struct Step {
  std::vector<wire::Message> send;
  bool done = false;
};

// A conversation with the dealer over one WebSocket: connect, wait for the dealer's Hello,
// send the opening message (which may sign the Hello's nonce), then feed every decoded
// frame to `on_message` until it says done or fails. One deadline covers the whole exchange.
class ConversationBase {
 public:
  virtual ~ConversationBase() = default;
  virtual void start() = 0;
  virtual size_t bytes_sent() const = 0;
  virtual size_t bytes_received() const = 0;
};

using Opening = std::function<wire::Message(const wire::ChannelContext&)>;
using OnMessage = std::function<ClientResult<Step>(wire::Message, const wire::ChannelContext&)>;
using OnFail = std::function<void(ClientError)>;

template <bool Tls>
class Conversation : public ConversationBase, public std::enable_shared_from_this<Conversation<Tls>> {
  using Transport = std::conditional_t<Tls, beast::ssl_stream<beast::tcp_stream>, beast::tcp_stream>;

 public:
  Conversation(asio::io_context& ioc, Endpoint dealer, std::string session_id, const Options& options, Opening opening,
               OnMessage on_message, OnFail on_fail, std::shared_ptr<asio::ssl::context> tls)
      : resolver_(asio::make_strand(ioc)),
        tls_(std::move(tls)),
        ws_(make_ws(resolver_.get_executor(), tls_.get())),
        deadline_(resolver_.get_executor()),
        link_delay_(resolver_.get_executor()),
        dealer_(std::move(dealer)),
        target_(dealer_.path_prefix + wire::session_path(session_id)),
        timeout_(options.timeout),
        options_(options),
        opening_(std::move(opening)),
        on_message_(std::move(on_message)),
        on_fail_(std::move(on_fail)) {}

  size_t bytes_sent() const override { return bytes_sent_; }
  size_t bytes_received() const override { return bytes_received_; }
  using std::enable_shared_from_this<Conversation<Tls>>::shared_from_this;

  void start() override {
    deadline_.expires_after(timeout_);
    deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      self->fail({ClientErrorKind::Timeout, "no result within " + std::to_string(self->timeout_.count()) + " ms", {}});
    });
    resolver_.async_resolve(dealer_.host, std::to_string(dealer_.port),
                            [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
                              if (ec) return self->fail({ClientErrorKind::Transport, "resolve: " + ec.message(), {}});
                              self->connect(results);
                            });
  }

 private:
  template <class Executor>
  static websocket::stream<Transport> make_ws(const Executor& ex,
                                              asio::ssl::context* ctx) {
    if constexpr (Tls)
      return websocket::stream<Transport>(ex, *ctx);
    else
      return websocket::stream<Transport>(ex);
  }

  void connect(const tcp::resolver::results_type& results) {
    beast::get_lowest_layer(ws_).async_connect(
        results, [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
          if (ec) return self->fail({ClientErrorKind::Transport, "connect: " + ec.message(), {}});
          // Every round is one small frame the dealer waits for: never hold one back for Nagle.
          beast::error_code ignored;
          beast::get_lowest_layer(self->ws_).socket().set_option(tcp::no_delay(true), ignored);
          if constexpr (Tls) {
            auto& ssl = self->ws_.next_layer();
            if (!SSL_set_tlsext_host_name(ssl.native_handle(), self->dealer_.host.c_str()))
              return self->fail({ClientErrorKind::Transport, "TLS: cannot set the server name", {}});
            if (!self->options_.insecure_skip_verify) {
              ssl.set_verify_mode(asio::ssl::verify_peer);
              ssl.set_verify_callback(asio::ssl::host_name_verification(self->dealer_.host));
            }
            ssl.async_handshake(asio::ssl::stream_base::client, [self](beast::error_code ec) {
              if (ec) return self->fail({ClientErrorKind::Transport, "TLS handshake: " + ec.message(), {}});
              self->websocket_handshake();
            });
          } else {
            self->websocket_handshake();
          }
        });
  }

  void websocket_handshake() {
    ws_.binary(true);
    ws_.read_message_max(1 << 20);
    ws_.async_handshake(upgrade_response_, dealer_.host, target_, [self = shared_from_this()](beast::error_code ec) {
      if (ec == websocket::error::upgrade_declined) return self->fail(self->declined());
      if (ec) return self->fail({ClientErrorKind::Transport, "handshake: " + ec.message(), {}});
      self->read();  // the dealer speaks first
    });
  }

  void read() {
    buffer_.clear();
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (self->finished_) return;
      if (ec) return self->fail({ClientErrorKind::Transport, "connection lost: " + ec.message(), {}});
      const auto data = self->buffer_.data();
      self->bytes_received_ += data.size();
      auto decoded = wire::decode({static_cast<const uint8_t*>(data.data()), data.size()}, wire::Limits{1 << 20});
      if (!decoded) return self->fail({ClientErrorKind::Protocol, wire::describe(decoded.error()), {}});
      if (auto* abort = std::get_if<wire::AbortMsg>(&*decoded))
        return self->fail({ClientErrorKind::Aborted, abort->reason, abort->blamed});
      if (!self->greeted_) {
        auto* hello = std::get_if<wire::HelloMsg>(&*decoded);
        if (!hello) return self->fail({ClientErrorKind::Protocol, "the dealer did not start with Hello", {}});
        if (auto why = self->accept_hello(*hello)) return self->fail(*why);
        self->queue_.push_back(wire::encode(self->opening_(self->channel_)));
        self->write_next();
        return self->read();
      }
      auto step = self->on_message_(std::move(*decoded), self->channel_);
      if (!step) return self->fail(step.error());
      for (const auto& m : step->send) self->queue_.push_back(wire::encode(m));
      if (!self->writing_) self->write_next();
      if (step->done) return self->finish();
      self->read();
    });
  }

  // The dealer answered the upgrade with an HTTP status (at capacity, too many connections
  // from our address, ...): its one-line reason is the error, not a bare transport failure.
  ClientError declined() const {
    std::string reason = upgrade_response_.body().substr(0, 200);
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == '\r')) reason.pop_back();
    if (reason.empty()) reason = "the dealer declined the WebSocket upgrade";
    return {ClientErrorKind::Aborted, reason + " (HTTP " + std::to_string(upgrade_response_.result_int()) + ")", {}};
  }

  // Records what our signatures will be bound to: the dealer's nonce and key, and over TLS
  // the exporter value of this very connection.
  std::optional<ClientError> accept_hello(const wire::HelloMsg& hello) {
    if (options_.dealer_key && *options_.dealer_key != hello.dealer_key)
      return ClientError{ClientErrorKind::MaliciousDealer,
                         "the dealer's key " + wire::public_key_hex(hello.dealer_key) + " is not the pinned one", {}};
    channel_.nonce = hello.nonce;
    channel_.dealer_key = hello.dealer_key;
    // Bind to our TLS channel when the dealer terminates it; behind a TLS-terminating proxy
    // the dealer sees plain TCP and says so. (Saying so falsely gains a relay nothing: the
    // dealer checks against its own connection.)
    if (!hello.tls_channel_binding) {
      greeted_ = true;
      return std::nullopt;
    }
    if constexpr (Tls) {
      channel_.channel_binding.resize(wire::kChannelBindingBytes);
      const std::string label = wire::kTlsExporterLabel;
      if (SSL_export_keying_material(ws_.next_layer().native_handle(), channel_.channel_binding.data(),
                                     channel_.channel_binding.size(), label.data(), label.size(), nullptr, 0, 0) != 1)
        return ClientError{ClientErrorKind::Transport, "TLS: no exporter for the channel binding", {}};
    }
    greeted_ = true;
    return std::nullopt;
  }

  void write_next() {
    if (queue_.empty() || writing_ || finished_) return;
    writing_ = true;
    auto frame = std::make_shared<std::vector<uint8_t>>(std::move(queue_.front()));
    queue_.erase(queue_.begin());
    bytes_sent_ += frame->size();
    auto delay = options_.added_latency;
    if (options_.bandwidth_bytes_per_second != 0)
      delay += std::chrono::milliseconds(frame->size() * 1000 / options_.bandwidth_bytes_per_second);
    auto write = [self = shared_from_this(), frame] {
      self->ws_.async_write(asio::buffer(*frame), [self, frame](beast::error_code ec, size_t) {
        self->writing_ = false;
        if (ec) return self->fail({ClientErrorKind::Transport, "send: " + ec.message(), {}});
        self->write_next();
      });
    };
    if (delay.count() == 0) return write();
    link_delay_.expires_after(delay);
    link_delay_.async_wait([write](beast::error_code ec) {
      if (!ec) write();
    });
  }

  void finish() {
    finished_ = true;
    deadline_.cancel();
    ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](beast::error_code) {});
  }

  void fail(ClientError e) {
    if (finished_) return;
    finished_ = true;
    deadline_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    on_fail_(std::move(e));
  }

  tcp::resolver resolver_;
  std::shared_ptr<asio::ssl::context> tls_;
  websocket::stream<Transport> ws_;
  asio::steady_timer deadline_;
  asio::steady_timer link_delay_;
  Endpoint dealer_;
  std::string target_;  // the WebSocket path, naming the session for load balancers
  std::chrono::milliseconds timeout_;
  Options options_;
  size_t bytes_sent_ = 0, bytes_received_ = 0;
  Opening opening_;
  OnMessage on_message_;
  wire::ChannelContext channel_;
  bool greeted_ = false;
  OnFail on_fail_;
  beast::flat_buffer buffer_;
  websocket::response_type upgrade_response_;
  std::vector<std::vector<uint8_t>> queue_;
  bool writing_ = false;
  bool finished_ = false;
};


// A TLS context that verifies against the options' CA file (or the system's).
ClientResult<std::shared_ptr<asio::ssl::context>> tls_context(const Options& options) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  boost::system::error_code ec;
  if (!options.ca_file.empty())
    ctx->load_verify_file(options.ca_file, ec);
  else
    ctx->set_default_verify_paths(ec);
  if (ec) return ClientError{ClientErrorKind::Refused, "cannot load CA file " + options.ca_file + ": " + ec.message(), {}};
  return ctx;
}

// Starts a conversation over ws:// or wss:// as the endpoint says.
std::shared_ptr<ConversationBase> converse(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                                           const Options& options, Opening opening, OnMessage on_message,
                                           OnFail on_fail) {
  std::shared_ptr<ConversationBase> c;
  if (dealer.tls) {
    auto ctx = tls_context(options);
    if (!ctx) {
      on_fail(ctx.error());
      return nullptr;
    }
    c = std::make_shared<Conversation<true>>(ioc, dealer, session_id, options, std::move(opening), std::move(on_message),
                                             std::move(on_fail), *ctx);
  } else {
    c = std::make_shared<Conversation<false>>(ioc, dealer, session_id, options, std::move(opening), std::move(on_message),
                                              std::move(on_fail), nullptr);
  }
  c->start();
  return c;
}

ClientError protocol_error(const std::string& what) { return {ClientErrorKind::Protocol, what, {}}; }

ClientError from_mpc(const mpc::MpcError& e) {
  const auto kind = e.kind == mpc::MpcErrorKind::MaliciousDealer ? ClientErrorKind::MaliciousDealer
                                                                  : ClientErrorKind::Refused;
  return {kind, mpc::describe(e), e.blamed};
}

// One party's run: the protocol state between frames, and the connections it takes. When a
// connection drops after the party has its seat, it joins again with the seat's resume
// token (and its key), resends the last message it sent, and answers a repeated challenge
// with the reply it gave before (mpc's replay), so the session goes on.
class PartyRun : public std::enable_shared_from_this<PartyRun> {
 public:
  PartyRun(asio::io_context& ioc, Endpoint dealer, std::string session_id, uint64_t value, const Scalar& blinding,
           Options options, std::function<void(ClientResult<PartyOutcome>)> handler)
      : ioc_(ioc),
        dealer_(std::move(dealer)),
        session_id_(std::move(session_id)),
        value_(value),
        blinding_(blinding),
        options_(std::move(options)),
        handler_(std::move(handler)),
        retry_timer_(ioc) {}
  ~PartyRun() { blinding_.wipe(); }

  void connect() {
    auto self = shared_from_this();
    conversation_ = converse(
        ioc_, dealer_, session_id_, options_, [self](const wire::ChannelContext& c) { return self->opening(c); },
        [self](wire::Message m, const wire::ChannelContext& c) { return self->on_message(std::move(m), c); },
        [self](ClientError e) { self->on_fail(std::move(e)); });
  }

 private:
  using State = std::variant<std::monostate, mpc::PartyAwaitingBitChallenge, mpc::PartyAwaitingPolyChallenge,
                             mpc::PartyAwaitingResult>;

  wire::Message opening(const wire::ChannelContext& channel) const {
    wire::JoinSessionMsg join{session_id_, resume_token_, std::nullopt};
    if (options_.identity) {
      const auto& key = options_.identity->public_key();
      join.party_auth = wire::KeySignature{key, options_.identity->sign(wire::join_statement(channel, join, key))};
    }
    return wire::Message{std::move(join)};
  }

  Step send(wire::Message m) {
    last_sent_ = m;
    return Step{{std::move(m)}, false};
  }

  ClientResult<Step> on_message(wire::Message message, const wire::ChannelContext& channel) {
    if (auto* joined = std::get_if<wire::JoinedMsg>(&message)) {
      if (!std::holds_alternative<std::monostate>(state_)) {
        // Our seat back after a reconnection: the same position, and our last message again.
        if (joined->position != position_) return protocol_error("resumed at another position");
        return last_sent_ ? send(*last_sent_) : Step{};
      }
      const mpc::SessionParams params{joined->n, joined->parties, joined->transcript_label};
      auto party = mpc::PartyAwaitingPosition::create(generators(params.n, params.padded_m()), pedersen(), params,
                                                      value_, blinding_);
      if (!party) return from_mpc(party.error());
      auto next = std::move(*party).assign_position(joined->position);
      if (!next) return from_mpc(next.error());
      position_ = joined->position;
      resume_token_ = joined->resume_token;
      state_ = std::move(next->first);
      return send(next->second);
    }
    if (auto* challenge = std::get_if<mpc::BitChallengeMsg>(&message)) {
      if (auto* answered = std::get_if<mpc::PartyAwaitingPolyChallenge>(&state_)) {
        auto again = answered->replay(*challenge);  // resent to us after a reconnection
        if (!again) return from_mpc(again.error());
        return send(*again);
      }
      auto* s = std::get_if<mpc::PartyAwaitingBitChallenge>(&state_);
      if (!s) return protocol_error("a bit challenge out of order");
      auto next = std::move(*s).apply_challenge(*challenge);
      if (!next) return from_mpc(next.error());
      state_ = std::move(next->first);
      return send(next->second);
    }
    if (auto* challenge = std::get_if<mpc::PolyChallengeMsg>(&message)) {
      if (auto* answered = std::get_if<mpc::PartyAwaitingResult>(&state_)) {
        auto again = answered->replay(*challenge);
        if (!again) return from_mpc(again.error());
        return send(std::move(*again));
      }
      auto* s = std::get_if<mpc::PartyAwaitingPolyChallenge>(&state_);
      if (!s) return protocol_error("a poly challenge out of order");
      auto next = std::move(*s).apply_challenge(*challenge);
      if (!next) return from_mpc(next.error());
      state_ = std::move(next->first);
      return send(std::move(next->second));
    }
    if (auto* signed_result = std::get_if<wire::ResultMsg>(&message)) {
      auto* s = std::get_if<mpc::PartyAwaitingResult>(&state_);
      if (!s) return protocol_error("a result out of order");
      auto checked = s->check_result(signed_result->result);
      if (!checked) return from_mpc(checked.error());
      // The signature is what a backend will show later: it must be this dealer's, over
      // this session's result.
      const auto& a = signed_result->attestation;
      if (!a || a->dealer_key != channel.dealer_key || a->session_id != session_id_ ||
          !wire::attestation_valid(*signed_result))
        return ClientError{ClientErrorKind::MaliciousDealer, "the result's dealer signature is missing or wrong", {}};
      PartyOutcome outcome{position_, std::move(signed_result->result), *a, bytes_sent_, bytes_received_};
      if (auto c = conversation_.lock()) {
        outcome.bytes_sent += c->bytes_sent();
        outcome.bytes_received += c->bytes_received();
      }
      finish(std::move(outcome));
      return Step{{}, true};
    }
    return protocol_error("an unexpected message from the dealer");
  }

  void on_fail(ClientError e) {
    const bool seated = !resume_token_.empty();
    if (e.kind == ClientErrorKind::Transport && seated && reconnects_ < options_.reconnect_attempts) {
      ++reconnects_;
      if (auto c = conversation_.lock()) {
        bytes_sent_ += c->bytes_sent();
        bytes_received_ += c->bytes_received();
      }
      retry_timer_.expires_after(options_.reconnect_delay);
      retry_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec) self->connect();
      });
      return;
    }
    finish(std::move(e));
  }

  void finish(ClientResult<PartyOutcome> outcome) {
    if (finished_) return;
    finished_ = true;
    handler_(std::move(outcome));
  }

  asio::io_context& ioc_;
  Endpoint dealer_;
  std::string session_id_;
  uint64_t value_;
  Scalar blinding_;
  Options options_;
  std::function<void(ClientResult<PartyOutcome>)> handler_;
  asio::steady_timer retry_timer_;
  std::weak_ptr<ConversationBase> conversation_;
  State state_;
  size_t position_ = 0;
  std::vector<uint8_t> resume_token_;
  std::optional<wire::Message> last_sent_;
  unsigned reconnects_ = 0;
  size_t bytes_sent_ = 0, bytes_received_ = 0;  // of the connections before the current one
  bool finished_ = false;
};

}  // namespace

void async_join_and_prove(asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          uint64_t value, const Scalar& blinding, const Options& options,
                          std::function<void(ClientResult<PartyOutcome>)> handler) {
  std::make_shared<PartyRun>(ioc, dealer, session_id, value, blinding, options, std::move(handler))->connect();
}

void async_create_session(asio::io_context& ioc, const Endpoint& dealer, const SessionRequest& request,
                          const Options& options, std::function<void(ClientResult<SessionInfo>)> handler) {
  auto done = std::make_shared<std::function<void(ClientResult<SessionInfo>)>>(std::move(handler));
  auto on_fail = [done](ClientError e) { (*done)(std::move(e)); };
  const std::string session_id = request.session_id.empty() ? wire::random_session_id() : request.session_id;
  auto on_message = [done, session_id](wire::Message message, const wire::ChannelContext&) -> ClientResult<Step> {
    auto* created = std::get_if<wire::SessionCreatedMsg>(&message);
    if (!created) return protocol_error("expected SessionCreated");
    if (created->session_id != session_id) return protocol_error("the dealer created another session id than ours");
    (*done)(SessionInfo{created->session_id, created->transcript_label});
    return Step{{}, true};
  };
  auto opening = [request, session_id, identity = options.identity](const wire::ChannelContext& channel) {
    wire::CreateSessionMsg create{request.bits,           request.parties, request.label, request.round_timeout_ms,
                                  request.allowed_parties, std::nullopt,    session_id};
    if (identity) {
      const auto& key = identity->public_key();
      create.operator_auth = wire::KeySignature{key, identity->sign(wire::create_statement(channel, create, key))};
    }
    return wire::Message{std::move(create)};
  };
  converse(ioc, dealer, session_id, options, std::move(opening), std::move(on_message), std::move(on_fail));
}

void async_manage_sessions(asio::io_context& ioc, const Endpoint& dealer, const std::vector<std::string>& cancel,
                           const Options& options, std::function<void(ClientResult<SessionListing>)> handler) {
  auto done = std::make_shared<std::function<void(ClientResult<SessionListing>)>>(std::move(handler));
  auto on_fail = [done](ClientError e) { (*done)(std::move(e)); };
  auto on_message = [done](wire::Message message, const wire::ChannelContext&) -> ClientResult<Step> {
    auto* list = std::get_if<wire::SessionListMsg>(&message);
    if (!list) return protocol_error("expected SessionList");
    (*done)(SessionListing{std::move(list->sessions), std::move(list->not_cancelled)});
    return Step{{}, true};
  };
  auto opening = [cancel, identity = options.identity](const wire::ChannelContext& channel) {
    wire::ManageSessionsMsg manage{cancel, std::nullopt};
    if (identity) {
      const auto& key = identity->public_key();
      manage.operator_auth = wire::KeySignature{key, identity->sign(wire::manage_statement(channel, manage, key))};
    }
    return wire::Message{std::move(manage)};
  };
  converse(ioc, dealer, "", options, std::move(opening), std::move(on_message), std::move(on_fail));
}

namespace {
template <class T, class Start>
ClientResult<T> run_blocking(Start&& start) {
  asio::io_context ioc;
  std::optional<ClientResult<T>> out;
  start(ioc, [&out](ClientResult<T> r) { out.emplace(std::move(r)); });
  ioc.run();
  if (!out) return ClientError{ClientErrorKind::Transport, "the exchange ended without a result", {}};
  return std::move(*out);
}
}  // namespace

ClientResult<PartyOutcome> join_and_prove(const Endpoint& dealer, const std::string& session_id, uint64_t value,
                                          const Scalar& blinding, const Options& options) {
  return run_blocking<PartyOutcome>([&](asio::io_context& ioc, auto handler) {
    async_join_and_prove(ioc, dealer, session_id, value, blinding, options, std::move(handler));
  });
}

ClientResult<SessionInfo> create_session(const Endpoint& dealer, const SessionRequest& request,
                                         const Options& options) {
  return run_blocking<SessionInfo>([&](asio::io_context& ioc, auto handler) {
    async_create_session(ioc, dealer, request, options, std::move(handler));
  });
}

ClientResult<SessionListing> manage_sessions(const Endpoint& dealer, const std::vector<std::string>& cancel,
                                             const Options& options) {
  return run_blocking<SessionListing>([&](asio::io_context& ioc, auto handler) {
    async_manage_sessions(ioc, dealer, cancel, options, std::move(handler));
  });
}

}  // namespace bp::client
