// HttpConnection's member definitions, for both transports: http_connection_plain.cpp and
// http_connection_tls.cpp each instantiate one, so that the two compile side by side. Internal
// to those two files.
#pragma once

#include "net/http_connection.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <chrono>

#include "bp/wire/proof_records.hpp"
#include "net/json_bodies.hpp"
#include "session/refusals.hpp"
#include "net/ws_connection.hpp"

namespace bp::server {

namespace http = beast::http;

namespace {

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

HttpAnswer json_answer(unsigned status, std::string body) {
  return {status, "application/json", std::move(body) + "\n"};
}

constexpr size_t kMaxProofsPerRequest = 256;
constexpr size_t kMaxHeaderBytes = 8192;
constexpr size_t kMaxDrainBytes = 1 << 20;  // read (and drop) after an error answer, so it is not lost to a reset

}  // namespace

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
      beast::get_lowest_layer(self->stream_)
          .expires_after(std::chrono::milliseconds(self->env_.config->handshake_timeout_ms));
      self->stream_.async_handshake(asio::ssl::stream_base::server, [self](beast::error_code ec) {
        if (!ec) self->read_request();
      });
    } else {
      self->read_request();
    }
  });
}

template <class Stream>
std::shared_ptr<HttpResponse> HttpConnection<Stream>::reply(const HttpAnswer& answer) const {
  // HTTP/1.0 gets 1.0; anything else (1.1, or a request that never said) 1.1.
  auto res = std::make_shared<HttpResponse>(static_cast<http::status>(answer.status),
                                            parser_ && parser_->get().version() == 10 ? 10u : 11u);
  res->set(http::field::server, "bp-dealer");
  res->set(http::field::content_type, answer.content_type);
  // An API, never a page: nothing to sniff, frame, cache or refer from; over TLS, TLS only.
  res->set("X-Content-Type-Options", "nosniff");
  res->set("X-Frame-Options", "DENY");
  res->set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
  res->set("Referrer-Policy", "no-referrer");
  res->set(http::field::cache_control, "no-store");
  if constexpr (kTls<Stream>) res->set(http::field::strict_transport_security, "max-age=31536000");
  if (answer.status == 503 || answer.status == 429) res->set(http::field::retry_after, "1");
  res->keep_alive(parser_ && parser_->is_header_done() && parser_->get().keep_alive() && answer.status < 400);
  res->body() = answer.body;
  res->prepare_payload();
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
        *status == 431 ? "request header fields too large (at most " + std::to_string(kMaxHeaderBytes) + " bytes)"
        : *status == 413
            ? "request body too large (at most " + std::to_string(env_.config->max_http_body_bytes) + " bytes)"
            : "bad request: " + ec.message();
    return write(reply({*status, "text/plain", why + "\n"}));
  }
  if (ticket_->refused()) {
    env_.metrics->refused(std::to_string(ticket_->status()));
    return write(reply({static_cast<unsigned>(ticket_->status()), "text/plain", ticket_->reason() + "\n"}));
  }
  auto route = handle_request(parser_->get(), env_);
  switch (route.kind) {
    case Route::Kind::Answer: return write(reply(route.answer));
    case Route::Kind::Upgrade: return upgrade();
    case Route::Kind::Verify: return start_verification();
    case Route::Kind::Lookup: return start_lookup(route.session_id);
  }
}

template <class Stream>
void HttpConnection<Stream>::upgrade() {
  if (auto why = upgrade_refusal(parser_->get(), env_)) {
    env_.metrics->refused("record_down");
    return write(reply({503, "text/plain", *why + "\n"}));
  }
  upgraded_ = true;
  beast::get_lowest_layer(stream_).expires_never();
  std::make_shared<WsConnection<Stream>>(std::move(stream_), env_, std::move(ticket_))->run(parser_->release());
}

template <class Stream>
void HttpConnection<Stream>::write_later(HttpAnswer answer) {
  asio::post(stream_.get_executor(),
             [self = shared_from_this(), answer = std::move(answer)] { self->write(self->reply(answer)); });
}

// Any replica answers for any session: the record says whether it ended (and how) or where
// it runs; a session running here is described from memory, which is newer.
template <class Stream>
void HttpConnection<Stream>::start_lookup(const std::string& id) {
  auto self = shared_from_this();
  auto send = [self](HttpAnswer answer) { self->write_later(std::move(answer)); };
  const bool queued = env_.records->find(id, [self, id, send](RecordResult<std::optional<SessionRow>> row) {
    if (!row) return send(json_answer(503, error_json(refusal::record_unavailable(row.error().reason))));
    if (!*row) return send(json_answer(404, error_json(refusal::kNoSuchSession)));
    const SessionRow& r = **row;
    if (!r.open) return send(json_answer(200, r.json));
    if (auto here = self->env_.registry->find(id)) {
      const auto s = here->summary();
      return send(json_answer(200, open_session_json(id, self->env_.records->replica(), s.phase, s.parties, s.joined)));
    }
    send(json_answer(200, open_session_json(id, r.live.replica, r.live.phase, r.live.parties, r.live.joined)));
  });
  if (!queued) {
    env_.metrics->refused("record_busy");
    write(reply(json_answer(503, error_json(refusal::kRecordBusy))));
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

// POST /v1/verify: the body is proofs as JSON lines; all of them go through one batch
// verification. Public data only, so no key is asked for; size and rate are capped, and the
// parsing and verification run on the verification pool, never on a session thread.
template <class Stream>
void HttpConnection<Stream>::start_verification() {
  auto body = std::make_shared<std::string>(std::move(parser_->get().body()));
  if (body->find_first_not_of(" \t\r\n") == std::string::npos)
    return write(reply(json_answer(400, error_json("no proofs in the request"))));
  auto job = [self = shared_from_this(), body] {
    const auto started = std::chrono::steady_clock::now();
    const auto seconds = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    auto records = wire::parse_proof_records(*body, kMaxProofsPerRequest);
    if (!records) {
      self->env_.metrics->verification("malformed", 0, seconds());
      return self->write_later(json_answer(400, error_json(records.error())));  // 400 closes
    }
    const auto outcome = wire::verify_records(*records, *self->env_.bp_gens, *self->env_.pc_gens);
    self->env_.metrics->verification(outcome.ok() ? "valid" : "invalid", records->size(), seconds());
    self->write_later(json_answer(200, verify_answer_json(outcome.ok(), records->size(), outcome.failed)));
  };
  const auto admitted = env_.verifier->submit(ticket_->address(), std::move(job));
  if (admitted == VerifyPool::Admit::Queued) return;
  const bool rate = admitted == VerifyPool::Admit::RateLimited;
  env_.metrics->refused(rate ? "verify_rate" : "verify_queue");
  write(reply(json_answer(rate ? 429 : 503,
                          error_json(rate ? "too many verification requests from your address (at most " +
                                                std::to_string(env_.config->verify_per_ip_per_s) + " per second)"
                                          : "the verification queue is full; try again shortly"))));
}

}  // namespace bp::server
