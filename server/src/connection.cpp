#include "connection.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "bp/json.hpp"
#include "bp/wire/proof_records.hpp"

namespace bp::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

namespace {

template <class Stream>
constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

std::string endpoint_text(const asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto ep = socket.remote_endpoint(ec);
  return ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port());
}

}  // namespace

// ---- HTTP ----

template <class Stream>
HttpConnection<Stream>::HttpConnection(Stream stream, ConnectionEnv env) : stream_(std::move(stream)), env_(env) {
  env_.metrics->connection_opened();
}

template <class Stream>
HttpConnection<Stream>::~HttpConnection() {
  if (!upgraded_) env_.metrics->connection_closed();
}

template <class Stream>
void HttpConnection<Stream>::run() {
  asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    if constexpr (kTls<Stream>) {
      // The TLS handshake shares the deadline a silent client gets.
      beast::get_lowest_layer(self->stream_).expires_after(std::chrono::milliseconds(self->env_.config->handshake_timeout_ms));
      self->stream_.async_handshake(asio::ssl::stream_base::server, [self](beast::error_code ec) {
        if (!ec) self->read_request();
      });
    } else {
      self->read_request();
    }
  });
}

template <class Stream>
void HttpConnection<Stream>::close() {
  if constexpr (kTls<Stream>) {
    stream_.async_shutdown([self = shared_from_this()](beast::error_code) {});
  } else {
    beast::error_code ignored;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  }
}

template <class Stream>
void HttpConnection<Stream>::read_request() {
  request_ = {};
  // A client that opens a connection and says nothing (slowloris) is dropped after this long.
  beast::get_lowest_layer(stream_).expires_after(std::chrono::milliseconds(env_.config->handshake_timeout_ms));
  http::async_read(stream_, buffer_, request_,
                   [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request(ec); });
}

template <class Stream>
void HttpConnection<Stream>::on_request(beast::error_code ec) {
  if (ec) return;  // closed, timed out or not HTTP: nothing to answer
  if (websocket::is_upgrade(request_)) {
    upgraded_ = true;
    beast::get_lowest_layer(stream_).expires_never();
    std::make_shared<WsConnection<Stream>>(std::move(stream_), env_)->run(std::move(request_));
    return;
  }
  auto response = std::make_shared<http::response<http::string_body>>(respond());
  // The answer gets its own deadline: a batch verification may have used up the request's.
  beast::get_lowest_layer(stream_).expires_after(std::chrono::milliseconds(env_.config->handshake_timeout_ms));
  http::async_write(stream_, *response, [self = shared_from_this(), response](beast::error_code ec, size_t) {
    if (ec || !response->keep_alive()) return self->close();
    self->read_request();
  });
}

template <class Stream>
http::response<http::string_body> HttpConnection<Stream>::respond() {
  http::response<http::string_body> res{http::status::ok, request_.version()};
  res.set(http::field::server, "bp-dealer");
  res.keep_alive(request_.keep_alive());
  const std::string target(request_.target());
  auto reply = [&](http::status status, std::string content_type, std::string body) {
    res.result(status);
    res.set(http::field::content_type, content_type);
    res.body() = std::move(body);
    res.prepare_payload();
    return res;
  };
  if (request_.method() == http::verb::post && target == "/v1/verify") return verify_request(reply);
  if (request_.method() != http::verb::get)
    return reply(http::status::method_not_allowed, "text/plain", "GET, or POST /v1/verify\n");
  if (target == "/healthz") return reply(http::status::ok, "text/plain", "ok\n");
  if (target == "/metrics")
    return reply(http::status::ok, "text/plain; version=0.0.4", env_.metrics->prometheus_text());
  static const std::string kSessions = "/v1/sessions/";
  if (target.rfind(kSessions, 0) == 0) {
    if (auto json = env_.store->find_json(target.substr(kSessions.size())))
      return reply(http::status::ok, "application/json", *json + "\n");
    return reply(http::status::not_found, "application/json", "{\"error\":\"no such session outcome\"}\n");
  }
  return reply(http::status::not_found, "text/plain", "not found\n");
}

// POST /v1/verify: the body is proofs as JSON lines; all of them go through one batch
// verification. Public data only, so no key is asked for; the size is capped.
template <class Stream>
template <class Reply>
http::response<http::string_body> HttpConnection<Stream>::verify_request(Reply& reply) {
  constexpr size_t kMaxProofs = 256;
  auto records = wire::parse_proof_records(request_.body(), kMaxProofs);
  if (!records) return reply(http::status::bad_request, "application/json", "{\"error\":" + json_string(records.error()) + "}\n");
  const auto outcome = wire::verify_records(*records, *env_.bp_gens, *env_.pc_gens);
  std::string failed;
  for (size_t k : outcome.failed) failed += (failed.empty() ? "" : ",") + std::to_string(k);
  return reply(http::status::ok, "application/json",
               std::string("{\"ok\":") + (outcome.ok() ? "true" : "false") + ",\"proofs\":" +
                   std::to_string(records->size()) + ",\"failed\":[" + failed + "]}\n");
}

// ---- WebSocket ----

template <class Stream>
WsConnection<Stream>::WsConnection(Stream stream, ConnectionEnv env) : ws_(std::move(stream)), env_(env) {
  peer_ = endpoint_text(beast::get_lowest_layer(ws_).socket());
}

template <class Stream>
WsConnection<Stream>::~WsConnection() { env_.metrics->connection_closed(); }

template <class Stream>
void WsConnection<Stream>::run(http::request<http::string_body> upgrade) {
  // A load balancer routes by the session in the path; the frames must agree with it.
  const std::string target(upgrade.target());
  const auto at = target.rfind("/v1/session/");
  if (at != std::string::npos) path_session_ = target.substr(at + 12);
  // Pings keep a waiting party's connection alive; a peer that stops answering is dropped.
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = std::chrono::milliseconds(env_.config->handshake_timeout_ms);
  timeouts.idle_timeout = std::chrono::milliseconds(env_.config->idle_timeout_ms);
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  ws_.read_message_max(env_.config->max_frame_bytes);
  ws_.binary(true);
  auto req = std::make_shared<http::request<http::string_body>>(std::move(upgrade));
  ws_.async_accept(*req, [self = shared_from_this(), req](beast::error_code ec) {
    if (ec) return;
    self->greet();
    self->read_frame();
  });
}

template <class Stream>
void WsConnection<Stream>::greet() {
  randombytes_buf(channel_.nonce.data(), channel_.nonce.size());
  channel_.dealer_key = env_.auth->dealer().public_key();
  if constexpr (kTls<Stream>) {
    channel_.channel_binding.resize(wire::kChannelBindingBytes);
    const std::string label = wire::kTlsExporterLabel;
    if (SSL_export_keying_material(ws_.next_layer().native_handle(), channel_.channel_binding.data(),
                                   channel_.channel_binding.size(), label.data(), label.size(), nullptr, 0, 0) != 1) {
      spdlog::warn("peer={}: no TLS exporter; closing", peer_);
      return close();
    }
  }
  send(std::make_shared<const std::vector<uint8_t>>(
      wire::encode(wire::HelloMsg{channel_.nonce, channel_.dealer_key, env_.auth->anonymous_allowed(), kTls<Stream>})));
}

template <class Stream>
void WsConnection<Stream>::read_frame() {
  buffer_.clear();
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, size_t n) { self->on_frame(ec, n); });
}

template <class Stream>
void WsConnection<Stream>::on_frame(beast::error_code ec, size_t bytes) {
  if (ec) {
    const auto session = seat_session();
    if (ec == websocket::error::message_too_big) {
      if (session) session->misbehaved(position_, shared_from_this(), "frame over the size limit");
      spdlog::warn("peer={} sent a frame over {} bytes", peer_, env_.config->max_frame_bytes);
    } else if (session) {
      session->disconnected(position_, shared_from_this());
    }
    closed_ = true;
    return;
  }
  env_.metrics->bytes_in(bytes);
  const auto data = buffer_.data();
  auto decoded = wire::decode({static_cast<const uint8_t*>(data.data()), data.size()},
                              wire::Limits{env_.config->max_frame_bytes});
  if (!decoded) {
    const std::string reason = "malformed frame: " + wire::describe(decoded.error());
    if (auto session = seat_session()) {
      session->misbehaved(position_, shared_from_this(), reason);
      // keep reading: the session closes us once it has told everyone
    } else {
      return refuse(reason);
    }
  } else {
    handle(std::move(*decoded));
  }
  if (!closed_) read_frame();
}

template <class Stream>
void WsConnection<Stream>::handle(wire::Message message) {
  if (seated_) {
    if (auto session = seat_session()) session->deliver(position_, shared_from_this(), std::move(message));
    return;
  }
  const auto* named = std::get_if<wire::CreateSessionMsg>(&message) ? &std::get<wire::CreateSessionMsg>(message).session_id
                      : std::get_if<wire::JoinSessionMsg>(&message)  ? &std::get<wire::JoinSessionMsg>(message).session_id
                                                                     : nullptr;
  if (named && !path_session_.empty() && *named != path_session_)
    return refuse("the URL names session " + path_session_ + " but the request names " + *named);
  if (auto* create = std::get_if<wire::CreateSessionMsg>(&message)) {
    if (auto why = env_.auth->check_create(channel_, *create)) return refuse(*why);
    auto created = env_.registry->create(*create);
    if (auto* why = std::get_if<std::string>(&created)) return refuse(*why);
    const auto& session = std::get<0>(created);
    auto frame = std::make_shared<const std::vector<uint8_t>>(wire::encode(wire::SessionCreatedMsg{
        session->id(), mpc::session_label(session->id(), create->n, create->parties, create->label)}));
    send(frame);
    return;
  }
  if (auto* join = std::get_if<wire::JoinSessionMsg>(&message)) {
    auto session = env_.registry->find(join->session_id);
    if (!session) return refuse("no such session");
    if (auto why = env_.auth->check_join(channel_, *join)) return refuse(*why);
    std::optional<wire::PublicKey> key;
    if (join->party_auth) key = join->party_auth->key;
    session->join(shared_from_this(), join->resume_token, key);
    return;
  }
  refuse("join a session first");
}

template <class Stream>
void WsConnection<Stream>::refuse(const std::string& reason) {
  spdlog::warn("peer={} refused: {}", peer_, reason);
  send(std::make_shared<const std::vector<uint8_t>>(wire::encode(wire::AbortMsg{reason, {}})));
  close();
}

template <class Stream>
void WsConnection<Stream>::seated(std::weak_ptr<AggregationSession> session, size_t position) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), session = std::move(session), position] {
    self->session_ = session;
    self->position_ = position;
    self->seated_ = true;
  });
}

template <class Stream>
void WsConnection<Stream>::send(std::shared_ptr<const std::vector<uint8_t>> frame) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), frame = std::move(frame)] {
    if (self->closed_) return;
    self->queue_.push_back(frame);
    if (!self->writing_) self->write_next();
  });
}

template <class Stream>
void WsConnection<Stream>::close() {
  asio::post(ws_.get_executor(), [self = shared_from_this()] {
    self->close_after_writes_ = true;
    if (!self->writing_) self->write_next();
  });
}

template <class Stream>
void WsConnection<Stream>::write_next() {
  if (closed_) return;
  if (queue_.empty()) {
    if (close_after_writes_) {
      closed_ = true;
      ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](beast::error_code) {});
    }
    return;
  }
  writing_ = true;
  auto frame = queue_.front();
  queue_.pop_front();
  ws_.async_write(asio::buffer(*frame), [self = shared_from_this(), frame](beast::error_code ec, size_t n) {
    self->writing_ = false;
    if (ec) {
      self->closed_ = true;
      return;
    }
    self->env_.metrics->bytes_out(n);
    self->write_next();
  });
}

template class HttpConnection<PlainStream>;
template class HttpConnection<TlsStream>;
template class WsConnection<PlainStream>;
template class WsConnection<TlsStream>;

}  // namespace bp::server
