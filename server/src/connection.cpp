#include "connection.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "bp/json.hpp"
#include "bp/wire/channel_binding.hpp"
#include "bp/wire/proof_records.hpp"
#include "outcome_json.hpp"

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

// A parse error the client caused and deserves an answer to (as opposed to a connection
// that closed, timed out or broke, which gets none).
std::optional<unsigned> status_for_parse_error(const beast::error_code& ec) {
  if (ec == http::error::header_limit) return 431;
  if (ec == http::error::body_limit) return 413;
  if (ec.category() == beast::error_code(http::error::end_of_stream).category() && ec != http::error::end_of_stream &&
      ec != http::error::partial_message && ec != http::error::need_more)
    return 400;
  return std::nullopt;
}

std::string json_error(const std::string& why) { return "{\"error\":" + json_string(why) + "}\n"; }

constexpr size_t kMaxProofsPerRequest = 256;
constexpr size_t kMaxHeaderBytes = 8192;
constexpr size_t kMaxDrainBytes = 1 << 20;  // read (and drop) after an error answer, so it is not lost to a reset

}  // namespace

// ---- HTTP ----

template <class Stream>
HttpConnection<Stream>::HttpConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket)
    : stream_(std::move(stream)), env_(env), ticket_(std::move(ticket)) {
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
HttpResponse HttpConnection<Stream>::reply(unsigned status, const std::string& content_type, std::string body) const {
  // HTTP/1.0 gets 1.0; anything else (1.1, or a request that never said) 1.1.
  HttpResponse res{static_cast<http::status>(status), parser_ && parser_->get().version() == 10 ? 10u : 11u};
  res.set(http::field::server, "bp-dealer");
  res.set(http::field::content_type, content_type);
  if (status == 503 || status == 429) res.set(http::field::retry_after, "1");
  res.keep_alive(parser_ && parser_->is_header_done() && parser_->get().keep_alive() && status < 400);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

template <class Stream>
void HttpConnection<Stream>::close() {
  // Half-close, then read (and drop) what the client still sends for a moment: closing with
  // unread bytes would reset the connection and could destroy the answer just written.
  auto self = shared_from_this();
  auto drain = [self](auto&& again, beast::error_code ec, size_t n) -> void {
    self->drained_ += n;
    if (ec || self->drained_ > kMaxDrainBytes) return;
    self->stream_.async_read_some(asio::buffer(self->drain_),
                                  [self, again](beast::error_code ec, size_t n) { again(again, ec, n); });
  };
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(1));
  if constexpr (kTls<Stream>) {
    stream_.async_shutdown([self](beast::error_code) {});
  } else {
    beast::error_code ignored;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    drain(drain, {}, 0);
  }
}

template <class Stream>
void HttpConnection<Stream>::read_request() {
  parser_.emplace();
  parser_->header_limit(kMaxHeaderBytes);
  parser_->body_limit(env_.config->max_http_body_bytes);
  // A client that opens a connection and says nothing (slowloris) is dropped after this long;
  // a refused one sooner, since it holds one of the few refusal slots.
  const uint32_t timeout_ms = ticket_->refused() ? std::min<uint32_t>(env_.config->handshake_timeout_ms, 2000)
                                                 : env_.config->handshake_timeout_ms;
  beast::get_lowest_layer(stream_).expires_after(std::chrono::milliseconds(timeout_ms));
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request(ec); });
}

template <class Stream>
void HttpConnection<Stream>::on_request(beast::error_code ec) {
  if (ec) {
    const auto status = status_for_parse_error(ec);
    if (!status) return;  // closed, timed out or broken: nobody to answer
    env_.metrics->refused(std::to_string(*status));
    const std::string why =
        *status == 431   ? "request header fields too large (at most " + std::to_string(kMaxHeaderBytes) + " bytes)"
        : *status == 413 ? "request body too large (at most " + std::to_string(env_.config->max_http_body_bytes) + " bytes)"
                         : "bad request: " + ec.message();
    return write(std::make_shared<HttpResponse>(reply(*status, "text/plain", why + "\n")));
  }
  if (ticket_->refused()) {
    env_.metrics->refused(std::to_string(ticket_->status()));
    return write(std::make_shared<HttpResponse>(reply(ticket_->status(), "text/plain", ticket_->reason() + "\n")));
  }
  auto& request = parser_->get();
  if (websocket::is_upgrade(request)) {
    if (auto why = refuse_upgrade()) {
      env_.metrics->refused("store_down");
      return write(std::make_shared<HttpResponse>(reply(503, "text/plain", *why + "\n")));
    }
    upgraded_ = true;
    beast::get_lowest_layer(stream_).expires_never();
    std::make_shared<WsConnection<Stream>>(std::move(stream_), env_, std::move(ticket_))->run(parser_->release());
    return;
  }
  if (request.method() == http::verb::post && request.target() == "/v1/verify") return start_verification();
  static const std::string kSessions = "/v1/sessions/";
  const std::string target(request.target());
  if (request.method() == http::verb::get && target.rfind(kSessions, 0) == 0 &&
      wire::valid_session_id(target.substr(kSessions.size())))
    return start_lookup(target.substr(kSessions.size()));
  write(std::make_shared<HttpResponse>(respond()));
}

// While the record fails no session can be created or end with an answer, so only the
// parties of a session running here get through (it ends with an abort that says why).
template <class Stream>
std::optional<std::string> HttpConnection<Stream>::refuse_upgrade() const {
  if (env_.records->healthy()) return std::nullopt;
  const std::string target(parser_->get().target());
  if (auto id = wire::session_id_in_path(target); id && env_.registry->find(*id)) return std::nullopt;
  return "the outcome record is unavailable (" + env_.records->failure() + "); no new sessions until it is back";
}

// Any replica answers for any session: the record says whether it ended (and how) or where
// it runs; a session running here is described from memory, which is newer.
template <class Stream>
void HttpConnection<Stream>::start_lookup(const std::string& id) {
  auto answer = std::make_shared<HttpResponse>(reply(200, "application/json", ""));
  auto self = shared_from_this();
  auto send = [self, answer](unsigned status, std::string body) {
    answer->result(static_cast<http::status>(status));
    if (status == 503) answer->set(http::field::retry_after, "1");
    answer->body() = std::move(body);
    answer->prepare_payload();
    asio::post(self->stream_.get_executor(), [self, answer] { self->write(answer); });
  };
  const bool queued = env_.records->find(id, [self, id, send](StoreResult<std::optional<SessionRow>> row) {
    if (!row) return send(503, json_error("the outcome record is unavailable: " + row.error().reason));
    if (!*row) return send(404, json_error("no such session"));
    const SessionRow& r = **row;
    if (!r.open) return send(200, r.json + "\n");
    if (auto here = self->env_.registry->find(id)) {
      const auto s = here->summary();
      return send(200, open_session_json(id, self->env_.records->replica(), s.phase, s.parties, s.joined) + "\n");
    }
    send(200, open_session_json(id, r.live.replica, r.live.phase, r.live.parties, r.live.joined) + "\n");
  });
  if (!queued) {
    env_.metrics->refused("store_busy");
    send(503, json_error("the outcome record is busy; try again shortly"));
  }
}

template <class Stream>
void HttpConnection<Stream>::write(std::shared_ptr<HttpResponse> response) {
  // The answer gets its own deadline: a batch verification may have used up the request's.
  beast::get_lowest_layer(stream_).expires_after(std::chrono::milliseconds(env_.config->handshake_timeout_ms));
  http::async_write(stream_, *response, [self = shared_from_this(), response](beast::error_code ec, size_t) {
    if (ec) return;
    if (!response->keep_alive()) return self->close();
    self->read_request();
  });
}

template <class Stream>
HttpResponse HttpConnection<Stream>::respond() {
  const auto& request = parser_->get();
  const std::string target(request.target());
  if (request.method() != http::verb::get) return reply(405, "text/plain", "GET, or POST /v1/verify\n");
  // Liveness: the process serves. Readiness: it can take new sessions (the record answers
  // and it is not draining), so a balancer sends it new work only then.
  if (target == "/healthz") return reply(200, "text/plain", "ok\n");
  if (target == "/readyz") {
    if (env_.stopping->load()) return reply(503, "text/plain", "shutting down\n");
    if (!env_.records->healthy())
      return reply(503, "text/plain", "the outcome record is unavailable: " + env_.records->failure() + "\n");
    return reply(200, "text/plain", "ready\n");
  }
  if (target == "/metrics") return reply(200, "text/plain; version=0.0.4", env_.metrics->prometheus_text());
  if (target.rfind("/v1/sessions/", 0) == 0)  // a valid id went to start_lookup
    return reply(400, "application/json", json_error("a session id is 32 lowercase hex characters"));
  return reply(404, "text/plain", "not found\n");
}

// POST /v1/verify: the body is proofs as JSON lines; all of them go through one batch
// verification. Public data only, so no key is asked for; size and rate are capped, and the
// parsing and verification run on the verification pool, never on a session thread.
template <class Stream>
void HttpConnection<Stream>::start_verification() {
  auto body = std::make_shared<std::string>(std::move(parser_->get().body()));
  if (body->find_first_not_of(" \t\r\n") == std::string::npos)
    return write(std::make_shared<HttpResponse>(reply(400, "application/json", json_error("no proofs in the request"))));
  auto answer = std::make_shared<HttpResponse>(reply(200, "application/json", ""));
  auto job = [self = shared_from_this(), body, answer] {
    auto records = wire::parse_proof_records(*body, kMaxProofsPerRequest);
    if (!records) {
      answer->result(http::status::bad_request);
      answer->keep_alive(false);
      answer->body() = json_error(records.error());
    } else {
      const auto outcome = wire::verify_records(*records, *self->env_.bp_gens, *self->env_.pc_gens);
      std::string failed;
      for (size_t k : outcome.failed) failed += (failed.empty() ? "" : ",") + std::to_string(k);
      answer->body() = std::string("{\"ok\":") + (outcome.ok() ? "true" : "false") +
                       ",\"proofs\":" + std::to_string(records->size()) + ",\"failed\":[" + failed + "]}\n";
    }
    answer->prepare_payload();
    asio::post(self->stream_.get_executor(), [self, answer] { self->write(answer); });
  };
  const auto admitted = env_.verifier->submit(ticket_->address(), std::move(job));
  if (admitted == VerifyPool::Admit::Queued) return;
  const bool rate = admitted == VerifyPool::Admit::RateLimited;
  env_.metrics->refused(rate ? "verify_rate" : "verify_queue");
  write(std::make_shared<HttpResponse>(
      reply(rate ? 429 : 503, "application/json",
            json_error(rate ? "too many verification requests from your address (at most " +
                                  std::to_string(env_.config->verify_per_ip_per_s) + " per second)"
                            : "the verification queue is full; try again shortly"))));
}

// ---- WebSocket ----

template <class Stream>
WsConnection<Stream>::WsConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket)
    : ws_(std::move(stream)), request_deadline_(ws_.get_executor()), env_(env), ticket_(std::move(ticket)) {
  peer_ = endpoint_text(beast::get_lowest_layer(ws_).socket());
}

template <class Stream>
WsConnection<Stream>::~WsConnection() { env_.metrics->connection_closed(); }

template <class Stream>
void WsConnection<Stream>::run(http::request<http::string_body> upgrade) {
  // A load balancer routes by the session in the path; the frames must agree with it.
  const std::string target(upgrade.target());
  if (auto id = wire::session_id_in_path(target))
    path_session_ = *id;
  else if (target.find(wire::session_path("")) != std::string::npos)
    path_session_ = target.substr(target.find(wire::session_path("")) + wire::session_path("").size());
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
    self->arm_request_deadline();
    self->read_frame();
  });
}

template <class Stream>
void WsConnection<Stream>::greet() {
  randombytes_buf(channel_.nonce.data(), channel_.nonce.size());
  channel_.dealer_key = env_.auth->dealer().public_key();
  if constexpr (kTls<Stream>) {
    if (!wire::export_channel_binding(ws_.next_layer().native_handle(), channel_)) {
      spdlog::warn("peer={}: no TLS exporter; closing", peer_);
      return close();
    }
  }
  enqueue(std::make_shared<const std::vector<uint8_t>>(
      wire::encode(wire::HelloMsg{channel_.nonce, channel_.dealer_key, env_.auth->anonymous_allowed(), kTls<Stream>})));
}

// An upgraded connection that is not (yet) in a session must keep asking for something, or
// it gives its slot back: without this a socket could sit here for ever, answering pings.
template <class Stream>
void WsConnection<Stream>::arm_request_deadline() {
  request_deadline_.expires_after(std::chrono::milliseconds(env_.config->request_timeout_ms));
  request_deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (ec || (self->state_ != State::AwaitingRequest && self->state_ != State::Operator)) return;  // Deciding: the record's deadline
    self->env_.metrics->refused("request_timeout");
    self->refuse("no request within " + std::to_string(self->env_.config->request_timeout_ms) + " ms");
  });
}

template <class Stream>
void WsConnection<Stream>::read_frame() {
  buffer_.clear();
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, size_t n) { self->on_frame(ec, n); });
}

template <class Stream>
void WsConnection<Stream>::on_frame(beast::error_code ec, size_t bytes) {
  if (ec) {
    request_deadline_.cancel();
    const auto session = state_ == State::Seated ? seat_session() : nullptr;
    if (ec == websocket::error::message_too_big) {
      if (session) session->misbehaved(position_, shared_from_this(), "frame over the size limit");
      spdlog::warn("peer={} sent a frame over {} bytes", peer_, env_.config->max_frame_bytes);
    } else if (session) {
      session->disconnected(position_, shared_from_this());
    }
    closed_ = true;
    state_ = State::Closing;
    return;
  }
  env_.metrics->bytes_in(bytes);
  const auto data = buffer_.data();
  auto decoded = wire::decode({static_cast<const uint8_t*>(data.data()), data.size()},
                              wire::Limits{env_.config->max_frame_bytes});
  switch (state_) {
    case State::Seated:
      if (auto session = seat_session()) {
        if (decoded)
          session->deliver(position_, shared_from_this(), std::move(*decoded));
        else  // keep reading: the session closes us once it has told everyone
          session->misbehaved(position_, shared_from_this(), "malformed frame: " + wire::describe(decoded.error()));
      }
      break;
    case State::AwaitingRequest:
    case State::Operator:
      if (!decoded) return refuse("malformed frame: " + wire::describe(decoded.error()));
      on_request(std::move(*decoded));
      break;
    case State::Deciding:  // nothing is read while a request is decided
    case State::Joining:
    case State::Closing:
      return;
  }
  if (closed_) return;
  if (state_ == State::Seated) return read_frame();
  // A join waits for the session's answer before the next frame is read (see the header),
  // and an operator's next request waits until the answer to this one is written: a peer
  // that sends requests without reading the answers gets no more of its frames read.
  if (state_ == State::AwaitingRequest || state_ == State::Operator) {
    if (writing_ || !queue_.empty())
      read_when_written_ = true;
    else
      read_frame();
  }
}

template <class Stream>
void WsConnection<Stream>::on_request(wire::Message message) {
  const std::string* named = nullptr;
  if (auto* c = std::get_if<wire::CreateSessionMsg>(&message)) named = &c->session_id;
  if (auto* j = std::get_if<wire::JoinSessionMsg>(&message)) named = &j->session_id;
  if (named && !path_session_.empty() && *named != path_session_)
    return refuse("the URL names session " + path_session_ + " but the request names " + *named);
  if (auto* c = std::get_if<wire::CreateSessionMsg>(&message)) return create(*c);
  if (auto* m = std::get_if<wire::ManageSessionsMsg>(&message)) return manage(*m);
  if (auto* j = std::get_if<wire::JoinSessionMsg>(&message)) {
    if (state_ == State::Operator) return refuse("an operator's connection cannot join a session");
    return join(*j);
  }
  refuse(state_ == State::Operator ? "an operator's connection sends only CreateSession or ManageSessions"
                                   : "join a session first");
}

template <class Stream>
SessionOwner WsConnection<Stream>::owner(const std::optional<wire::KeySignature>& auth) const {
  return SessionOwner{auth ? std::optional(auth->key) : std::nullopt, ticket_->address()};
}

template <class Stream>
void WsConnection<Stream>::create(const wire::CreateSessionMsg& request) {
  if (auto why = env_.auth->check_create(channel_, request)) return refuse(*why);
  state_ = State::Deciding;
  request_deadline_.cancel();
  // SessionCreated goes out only once the record holds the id's claim.
  env_.registry->create(request, owner(request.operator_auth),
                        [self = shared_from_this(), request](SessionRegistry::Created created) {
                          asio::post(self->ws_.get_executor(), [self, request, created = std::move(created)] {
                            if (self->state_ != State::Deciding) return;  // closed meanwhile
                            if (auto* why = std::get_if<std::string>(&created)) return self->refuse(*why);
                            const auto& session = std::get<0>(created);
                            self->answer_operator(wire::encode(wire::SessionCreatedMsg{
                                session->id(),
                                mpc::session_label(session->id(), request.n, request.parties, request.label)}));
                          });
                        });
}

template <class Stream>
void WsConnection<Stream>::answer_operator(std::vector<uint8_t> frame) {
  state_ = State::Operator;
  arm_request_deadline();
  read_when_written_ = true;  // the next request is read once this answer is out
  enqueue(std::make_shared<const std::vector<uint8_t>>(std::move(frame)));
}

template <class Stream>
void WsConnection<Stream>::manage(const wire::ManageSessionsMsg& request) {
  if (auto why = env_.auth->check_manage(channel_, request)) return refuse(*why);
  state_ = State::Deciding;
  request_deadline_.cancel();
  env_.registry->manage(owner(request.operator_auth), request.cancel,
                        [self = shared_from_this()](std::variant<wire::SessionListMsg, std::string> answer) {
                          asio::post(self->ws_.get_executor(), [self, answer = std::move(answer)] {
                            if (self->state_ != State::Deciding) return;
                            if (auto* why = std::get_if<std::string>(&answer)) return self->refuse(*why);
                            self->answer_operator(wire::encode(std::get<wire::SessionListMsg>(answer)));
                          });
                        });
}

template <class Stream>
void WsConnection<Stream>::join(const wire::JoinSessionMsg& request) {
  auto session = env_.registry->find(request.session_id);
  if (!session) return join_elsewhere(request.session_id);
  if (auto why = env_.auth->check_join(channel_, request)) return refuse(*why);
  std::optional<wire::PublicKey> key;
  if (request.party_auth) key = request.party_auth->key;
  state_ = State::Joining;
  request_deadline_.cancel();  // the session's own deadline covers the rest of this connection's life
  session->join(shared_from_this(), request.resume_token, key);
}

// Not running here: a party sent to the wrong replica (after a ring change) learns where the
// session is, or that it ended, instead of a bare "no such session".
template <class Stream>
void WsConnection<Stream>::join_elsewhere(const std::string& id) {
  state_ = State::Joining;
  request_deadline_.cancel();
  auto answer = [self = shared_from_this()](std::string why) {
    asio::post(self->ws_.get_executor(), [self, why = std::move(why)] {
      if (self->state_ == State::Joining) self->refuse(why);
    });
  };
  const bool queued = env_.records->find(id, [answer, id](StoreResult<std::optional<SessionRow>> row) {
    if (!row || !*row) return answer("no such session");
    if ((*row)->open)
      return answer("session " + id + " is held by dealer replica " + (*row)->live.replica +
                    ", not this one: the balancer sent this connection elsewhere (a ring change, or " +
                    (*row)->live.replica + " stopped)");
    answer("the session has ended");
  });
  if (!queued) refuse("no such session");
}

template <class Stream>
void WsConnection<Stream>::refuse(const std::string& reason) {
  spdlog::warn("peer={} refused: {}", peer_, reason);
  state_ = State::Closing;
  request_deadline_.cancel();
  enqueue(std::make_shared<const std::vector<uint8_t>>(wire::encode(wire::AbortMsg{reason, {}})));
  close();
}

template <class Stream>
void WsConnection<Stream>::seated(std::weak_ptr<AggregationSession> session, size_t position) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), session = std::move(session), position] {
    if (self->state_ != State::Joining) return;  // closed meanwhile
    self->session_ = session;
    self->position_ = position;
    self->state_ = State::Seated;
    self->read_frame();  // the frames that followed the join, and every later one
  });
}

template <class Stream>
void WsConnection<Stream>::send(std::shared_ptr<const std::vector<uint8_t>> frame) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), frame = std::move(frame)] { self->enqueue(frame); });
}

template <class Stream>
void WsConnection<Stream>::enqueue(std::shared_ptr<const std::vector<uint8_t>> frame) {
  if (closed_) return;
  // An honest peer has a few frames in flight at most (a round's broadcast, an answer); one
  // that stops reading is dropped rather than buffered for.
  if (queue_.size() >= kMaxQueuedFrames) {
    spdlog::warn("peer={} reads none of its frames; closing", peer_);
    closed_ = true;
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    return;
  }
  queue_.push_back(std::move(frame));
  if (!writing_) write_next();
}

template <class Stream>
void WsConnection<Stream>::close() {
  asio::post(ws_.get_executor(), [self = shared_from_this()] {
    if (self->state_ != State::Seated) self->state_ = State::Closing;
    self->request_deadline_.cancel();
    self->close_after_writes_ = true;
    if (!self->writing_) self->write_next();
  });
}

template <class Stream>
void WsConnection<Stream>::write_next() {
  if (closed_) return;
  if (queue_.empty()) {
    if (read_when_written_ && !close_after_writes_) {
      read_when_written_ = false;
      read_frame();
    }
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
