// The WebSocket conversation itself, over plain TCP or TLS: one class template, instantiated
// once per transport in its own file (conversation_plain.cpp, conversation_tls.cpp) so that
// the two heaviest instantiations of the client compile side by side. Internal to
// conversation*.cpp.
#pragma once

#include "conversation.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <concepts>
#include <cstdlib>
#include <deque>

#include "bp/wire/channel_binding.hpp"
#include "bp/wire/tls_profile.hpp"

namespace bp::client::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// A fault of the path: another connection may not meet it.
inline ClientError lost(const std::string& what) { return {ClientErrorKind::Transport, what, {}, 0, true}; }

// A dealer's Abort as our caller acts on it: a refusal of the request says its kind (1.6).
inline ClientErrorKind kind_of(wire::RefusalKind refusal) {
  switch (refusal) {
    case wire::RefusalKind::NotAllowed: return ClientErrorKind::NotAllowed;
    case wire::RefusalKind::NoSuchSession: return ClientErrorKind::NoSuchSession;
    case wire::RefusalKind::OverLimit: return ClientErrorKind::OverLimit;
    case wire::RefusalKind::None: break;
  }
  return ClientErrorKind::Aborted;
}

// Why a read ended. A frame over our limit, or one that breaks the WebSocket protocol, is the
// dealer's doing and would come again on the next connection: a protocol error that ends the
// join at once. Only a loss of the path (reset, closed, silent) may pass.
inline ClientError read_failure(const boost::system::error_code& ec) {
  namespace websocket = boost::beast::websocket;
  if (ec == websocket::error::message_too_big || ec == websocket::error::buffer_overflow)
    return protocol_error("the dealer sent a frame over our limit of " + std::to_string(kMaxDealerFrameBytes) +
                          " bytes");
  if (ec == websocket::condition::protocol_violation)
    return protocol_error("the dealer broke the WebSocket protocol: " + ec.message());
  const std::string why =
      ec.message().empty() ? ec.category().name() + std::string(" error ") + std::to_string(ec.value()) : ec.message();
  return lost("connection lost: " + why);
}

template <bool Tls>
class WebSocketConversation final : public Conversation,
                                    public std::enable_shared_from_this<WebSocketConversation<Tls>> {
  using Transport = std::conditional_t<Tls, beast::ssl_stream<beast::tcp_stream>, beast::tcp_stream>;
  // Where the conversation is; every callback checks it, so nothing runs after the end.
  enum class Phase { Connecting, AwaitingHello, Talking, Ended };

 public:
  WebSocketConversation(const Strand& strand, const Endpoint& dealer, const std::string& session_id,
                        const Options& options, const LinkEmulation& link, std::shared_ptr<Dialogue> dialogue,
                        std::shared_ptr<asio::ssl::context> tls)
      : resolver_(strand),
        tls_(std::move(tls)),
        ws_(make_ws(resolver_.get_executor(), tls_.get())),
        deadline_(resolver_.get_executor()),
        link_delay_(resolver_.get_executor()),
        dealer_(dealer),
        target_(dealer.path_prefix + wire::session_path(session_id)),
        options_(options),
        link_(link),
        dialogue_(std::move(dialogue)) {}

  using Self = std::shared_ptr<WebSocketConversation>;

  size_t bytes_sent() const override { return bytes_sent_; }
  size_t bytes_received() const override { return bytes_received_; }

  void resume(ClientResult<Step> step) override {
    asio::dispatch(resolver_.get_executor(), [self = this->shared_from_this(), step = std::move(step)]() mutable {
      self->guarded([&] { self->take(std::move(step)); });
    });
  }

  void start() {
    deadline_.expires_after(options_.timeout);
    deadline_.async_wait(guard([](const Self& self, beast::error_code ec) {
      if (ec) return;
      self->fail(
          {ClientErrorKind::Timeout, "no result within " + std::to_string(self->options_.timeout.count()) + " ms", {}});
    }));
    resolver_.async_resolve(dealer_.host, std::to_string(dealer_.port),
                            guard([](const Self& self, beast::error_code ec, tcp::resolver::results_type results) {
                              if (ec == asio::error::host_not_found_try_again)
                                return self->fail(lost("resolve: " + ec.message()));
                              if (ec) return self->fail({ClientErrorKind::Transport, "resolve: " + ec.message(), {}});
                              self->connect(results);
                            }));
  }

 private:
  template <class Executor>
  static websocket::stream<Transport> make_ws(const Executor& ex, asio::ssl::context* ctx) {
    if constexpr (Tls)
      return websocket::stream<Transport>(ex, *ctx);
    else
      return websocket::stream<Transport>(ex);
  }

  void connect(const tcp::resolver::results_type& results) {
    // Connecting and the TLS handshake are bounded like the upgrade (a paused dealer's
    // kernel still completes the TCP handshake, and then nothing answers).
    beast::get_lowest_layer(ws_).expires_after(options_.idle_timeout);
    beast::get_lowest_layer(ws_).async_connect(
        results, guard([](const Self& self, beast::error_code ec, const tcp::endpoint&) {
          if (ec) return self->fail(lost("connect: " + ec.message()));
          // Every round is one small frame the dealer waits for: never hold one back for Nagle.
          beast::error_code ignored;
          beast::get_lowest_layer(self->ws_).socket().set_option(tcp::no_delay(true), ignored);
          if constexpr (Tls)
            self->tls_handshake();
          else
            self->websocket_handshake();
        }));
  }

  void tls_handshake() {
    auto& ssl = ws_.next_layer();
    if (!SSL_set_tlsext_host_name(ssl.native_handle(), dealer_.host.c_str()))
      return fail({ClientErrorKind::Transport, "TLS: cannot set the server name", {}});
    if (!options_.insecure_skip_verify) {
      ssl.set_verify_mode(asio::ssl::verify_peer);
      ssl.set_verify_callback(asio::ssl::host_name_verification(dealer_.host));
    }
    ssl.async_handshake(asio::ssl::stream_base::client, guard([](const Self& self, beast::error_code ec) {
                          // A certificate that does not verify fails the same way on every connection; a
                          // handshake cut short or timed out may pass.
                          if (ec && ec.category() == asio::error::get_ssl_category())
                            return self->fail({ClientErrorKind::Transport, "TLS handshake: " + ec.message(), {}});
                          if (ec) return self->fail(lost("TLS handshake: " + ec.message()));
                          self->websocket_handshake();
                        }));
  }

  void websocket_handshake() {
    beast::get_lowest_layer(ws_).expires_never();  // the WebSocket's own timeouts from here on
    ws_.binary(true);
    ws_.read_message_max(kMaxDealerFrameBytes);
    // Pings keep a waiting party's connection open through balancers, and find a dealer
    // that stopped answering (paused, cut off) in idle_timeout rather than never.
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = options_.idle_timeout;
    timeouts.idle_timeout = options_.idle_timeout;
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.async_handshake(upgrade_response_, dealer_.host, target_, guard([](const Self& self, beast::error_code ec) {
                          if (ec == websocket::error::upgrade_declined) return self->fail(self->declined());
                          if (ec) return self->fail(lost("handshake: " + ec.message() + self->tls_hint(ec)));
                          self->phase_ = Phase::AwaitingHello;  // the dealer speaks first
                          self->read();
                        }));
  }

  void read() {
    buffer_.clear();
    ws_.async_read(buffer_, guard([](const Self& self, beast::error_code ec, size_t) {
                     if (self->phase_ == Phase::Ended) return;
                     if (ec) return self->fail(read_failure(ec));
                     if (self->ws_.got_text())
                       return self->fail(protocol_error("the dealer sent a text frame (the protocol is binary)"));
                     const auto data = self->buffer_.data();
                     self->bytes_received_ += data.size();
                     auto decoded = wire::decode({static_cast<const uint8_t*>(data.data()), data.size()},
                                                 wire::Limits{kMaxDealerFrameBytes});
                     if (!decoded) return self->fail(protocol_error(wire::describe(decoded.error())));
                     self->on_frame(std::move(*decoded));
                   }));
  }

  // Nothing thrown in a handler (an allocation that fails while a frame is decoded or
  // answered, or anywhere else) leaves it: the conversation ends in an error that says so,
  // and the caller's io_context goes on.
  template <class F>
  auto guard(F f) {
    // Constrained, so an operation with overloads per handler signature still picks one.
    return [ self = this->shared_from_this(), f = std::move(f) ]<class... Args>(
        Args && ... args) mutable requires std::invocable<F&, const Self&, Args...> {
      self->guarded([&] { f(self, std::forward<Args>(args)...); });
    };
  }
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      fail(internal_error(e));
    }
  }

  void on_frame(wire::Message message) {
    if (auto* abort = std::get_if<wire::AbortMsg>(&message))
      return fail(
          {kind_of(abort->refusal), abort->reason, abort->blamed, abort->reconnect_after_ms, false, abort->successor});
    if (phase_ == Phase::AwaitingHello) {
      auto* hello = std::get_if<wire::HelloMsg>(&message);
      if (!hello) return fail(protocol_error("the dealer did not start with Hello"));
      if (auto why = accept_hello(*hello)) return fail(*why);
      phase_ = Phase::Talking;
      enqueue(dialogue_->opening(channel_));
      return read();
    }
    take(dialogue_->on_message(std::move(message), channel_));
  }

  void take(ClientResult<Step> step) {
    if (phase_ == Phase::Ended) return;
    if (!step) return fail(step.error());
    if (step->pending) return;  // resume() brings the step
    for (auto& m : step->send) enqueue(m);
    if (step->fail_after) {
      finish();  // the close waits for the frames queued before it
      return dialogue_->on_fail(std::move(*step->fail_after));
    }
    if (step->done) return finish();
    read();
  }

  // A dealer that speaks TLS ends a plain upgrade at once (it reads no HTTP before its
  // handshake): said beside the error, since it looks like any lost connection.
  std::string tls_hint(const beast::error_code& ec) const {
    if constexpr (Tls) return {};
    const bool ended =
        ec == boost::beast::http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset;
    return ended ? " (a TLS dealer ends a plain ws:// upgrade so: is the URL wss://?)" : "";
  }

  // The dealer answered the upgrade with an HTTP status (at capacity, too many connections
  // from our address, ...): its one-line reason is the error, not a bare transport failure.
  ClientError declined() const {
    std::string reason = upgrade_response_.body().substr(0, 200);
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == '\r')) reason.pop_back();
    // A balancer's page (HTML) says no more than its status line.
    if (reason.empty() || reason.front() == '<' || reason.find_first_of("\r\n") != std::string::npos)
      reason = "the dealer declined the WebSocket upgrade: " + std::string(upgrade_response_.reason());
    const unsigned status = upgrade_response_.result_int();
    // A balancer with no replica to send us to, a dealer at capacity or without its record,
    // or one that admits no more new connections from our address this second (429: a
    // backend running many sessions at once): it may pass, after the Retry-After the dealer
    // names (1 s when it names none).
    const bool may_pass = status == 429 || status == 502 || status == 503 || status == 504;
    uint32_t after_ms = 1000;
    if (const auto header = upgrade_response_[boost::beast::http::field::retry_after]; !header.empty()) {
      const unsigned long seconds = std::strtoul(std::string(header).c_str(), nullptr, 10);
      if (seconds >= 1 && seconds <= 60) after_ms = static_cast<uint32_t>(seconds * 1000);
    }
    return {status == 429 ? ClientErrorKind::RateLimited : ClientErrorKind::Aborted,
            reason + " (HTTP " + std::to_string(status) + ")",
            {},
            may_pass ? after_ms : 0u};
  }

  // Records what our signatures will be bound to: the dealer's nonce and key, and over TLS
  // the exporter value of this very connection when the dealer terminates TLS itself.
  // Behind a TLS-terminating proxy the dealer sees plain TCP and says so; saying so falsely
  // gains a relay nothing, since the dealer checks against its own connection.
  std::optional<ClientError> accept_hello(const wire::HelloMsg& hello) {
    if (options_.dealer_key && *options_.dealer_key != hello.dealer_key)
      return ClientError{ClientErrorKind::MaliciousDealer,
                         "the dealer's key " + wire::public_key_hex(hello.dealer_key) + " is not the pinned one",
                         {}};
    channel_.nonce = hello.nonce;
    channel_.dealer_key = hello.dealer_key;
    channel_.dealer_minor_version = hello.minor_version;
    if constexpr (Tls) {
      if (hello.tls_channel_binding && !wire::export_channel_binding(ws_.next_layer().native_handle(), channel_))
        return ClientError{ClientErrorKind::Transport, "TLS: no exporter for the channel binding", {}};
    }
    return std::nullopt;
  }

  // One write in flight: the queue's front is the frame being written.
  void enqueue(const wire::Message& message) {
    queue_.push_back(wire::encode(message));
    if (queue_.size() == 1) write_front();
  }

  void write_front() {
    const auto& frame = queue_.front();
    bytes_sent_ += frame.size();
    auto delay = link_.added_latency;
    if (link_.bandwidth_bytes_per_second != 0)
      delay += std::chrono::milliseconds(frame.size() * 1000 / link_.bandwidth_bytes_per_second);
    if (delay.count() == 0) return write_now();
    link_delay_.expires_after(delay);
    link_delay_.async_wait(guard([](const Self& self, beast::error_code ec) {
      if (!ec) self->write_now();
    }));
  }

  void write_now() {
    if (phase_ == Phase::Ended) return;
    ws_.async_write(asio::buffer(queue_.front()), guard([](const Self& self, beast::error_code ec, size_t) {
                      if (ec) return self->fail(lost("send: " + ec.message()));
                      self->queue_.pop_front();
                      if (!self->queue_.empty()) self->write_front();
                    }));
  }

  void finish() {
    phase_ = Phase::Ended;
    deadline_.cancel();
    ws_.async_close(websocket::close_code::normal, [self = this->shared_from_this()](beast::error_code) {});
  }

  void fail(ClientError e) {
    if (phase_ == Phase::Ended) return;
    phase_ = Phase::Ended;
    deadline_.cancel();
    link_delay_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    dialogue_->on_fail(std::move(e));
  }

  tcp::resolver resolver_;
  std::shared_ptr<asio::ssl::context> tls_;
  websocket::stream<Transport> ws_;
  asio::steady_timer deadline_;
  asio::steady_timer link_delay_;
  Endpoint dealer_;
  std::string target_;  // the WebSocket path, naming the session for load balancers
  Options options_;
  LinkEmulation link_;
  std::shared_ptr<Dialogue> dialogue_;
  Phase phase_ = Phase::Connecting;
  wire::ChannelContext channel_;
  beast::flat_buffer buffer_;
  websocket::response_type upgrade_response_;
  std::deque<std::vector<uint8_t>> queue_;
  size_t bytes_sent_ = 0, bytes_received_ = 0;
};

template <bool Tls>
std::shared_ptr<Conversation> start_conversation(const Strand& strand, const Endpoint& dealer,
                                                 const std::string& session_id, const Options& options,
                                                 const LinkEmulation& link, std::shared_ptr<Dialogue> dialogue,
                                                 std::shared_ptr<asio::ssl::context> tls) {
  auto c = std::make_shared<WebSocketConversation<Tls>>(strand, dealer, session_id, options, link, std::move(dialogue),
                                                        std::move(tls));
  c->start();
  return c;
}

}  // namespace bp::client::detail
