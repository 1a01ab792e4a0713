// WsConnection's member definitions, for both transports: ws_connection_plain.cpp and
// ws_connection_tls.cpp each instantiate one, so that the two compile side by side. Internal
// to those two files.
#pragma once

#include "net/ws_connection.hpp"

#include <sodium.h>
#include "observability/log.hpp"

#include <boost/asio/post.hpp>

#include "bp/wire/channel_binding.hpp"
#include "bp/wire/proof_records.hpp"

namespace bp::server {

namespace websocket = beast::websocket;

namespace {
std::string endpoint_text(const asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto ep = socket.remote_endpoint(ec);
  return ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port());
}
}  // namespace

template <class Stream>
WsConnection<Stream>::WsConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket)
    : ws_(std::move(stream)), request_deadline_(ws_.get_executor()), env_(env), ticket_(std::move(ticket)) {
  peer_ = endpoint_text(beast::get_lowest_layer(ws_).socket());
}

template <class Stream>
WsConnection<Stream>::~WsConnection() {
  env_.metrics->connection_closed();
}

template <class Stream>
void WsConnection<Stream>::run(HttpRequest upgrade) {
  // A load balancer routes by the session in the path; the frames must agree with it.
  const std::string target(upgrade.target());
  const std::string prefix = wire::session_path("");
  if (auto id = wire::session_id_in_path(target))
    path_session_ = *id;
  else if (const auto at = target.find(prefix); at != std::string::npos)
    path_session_ = target.substr(at + prefix.size());  // not an id: any request naming a session mismatches it
  // Pings keep a waiting party's connection alive; a peer that stops answering is dropped.
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = std::chrono::milliseconds(env_.config->handshake_timeout_ms);
  timeouts.idle_timeout = std::chrono::milliseconds(env_.config->idle_timeout_ms);
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  frame_limit_ = env_.config->max_frame_bytes;
  ws_.read_message_max(frame_limit_);
  ws_.binary(true);
  auto req = std::make_shared<HttpRequest>(std::move(upgrade));
  ws_.async_accept(*req, [self = shared_from_this(), req](beast::error_code ec) {
    if (ec) return;
    self->greet();
    if (self->state_ != State::AwaitingRequest) return;
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
      log::warn("no TLS exporter; closing", {{"remote", peer_}});
      return begin_close();
    }
  }
  enqueue(std::make_shared<const std::vector<uint8_t>>(wire::encode(wire::HelloMsg{
      channel_.nonce, channel_.dealer_key, env_.auth->anonymous_allowed(), kTls<Stream>, wire::kWireMinorVersion})));
}

// An upgraded connection that is not (yet) in a session must keep asking for something, or
// it gives its slot back: without this a socket could sit here for ever, answering pings.
template <class Stream>
void WsConnection<Stream>::arm_request_deadline() {
  request_deadline_.expires_after(std::chrono::milliseconds(env_.config->request_timeout_ms));
  request_deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
    const State s = self->state_;
    if (ec || (s != State::AwaitingRequest && s != State::Answering && s != State::Operator)) return;
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
      log::warn("frame over the size limit", {{"remote", peer_}, {"limit_bytes", frame_limit_}});
    } else if (session) {
      session->disconnected(position_, shared_from_this());
    }
    state_ = State::Closed;
    return;
  }
  env_.metrics->bytes_in(bytes);
  const auto data = buffer_.data();
  auto decoded = wire::decode({static_cast<const uint8_t*>(data.data()), data.size()}, wire::Limits{frame_limit_});
  switch (state_) {
    case State::Seated:
      if (auto session = seat_session()) {
        if (decoded)
          session->deliver(position_, shared_from_this(), std::move(*decoded));
        else  // keep reading: the session closes us once it has told everyone
          session->misbehaved(position_, shared_from_this(), "malformed frame: " + wire::describe(decoded.error()));
      }
      return read_frame();
    case State::AwaitingRequest:
    case State::Operator:
      if (!decoded) return refuse("malformed frame: " + wire::describe(decoded.error()));
      return on_request(std::move(*decoded));  // it moves the state on: no frame is read until then
    default: return;                           // only the states above read
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
void WsConnection<Stream>::decide() {
  state_ = State::Deciding;
  request_deadline_.cancel();  // the record's own deadline covers it
}

template <class Stream>
void WsConnection<Stream>::create(const wire::CreateSessionMsg& request) {
  if (auto why = env_.auth->check_create(channel_, request)) return refuse(why->reason, 0, why->kind);
  decide();
  // SessionCreated goes out only once the record holds the id's claim.
  env_.registry->create(
      request, owner(request.operator_auth), [self = shared_from_this(), request](SessionRegistry::Created created) {
        asio::post(self->ws_.get_executor(), [self, request, created = std::move(created)] {
          if (self->state_ != State::Deciding) return;  // closed meanwhile
          if (auto* why = std::get_if<CreateRefusal>(&created)) return self->refuse(why->reason, 0, why->kind);
          const auto& session = std::get<0>(created);
          self->answer_operator(wire::encode(wire::SessionCreatedMsg{session->id(), session->transcript_label()}));
        });
      });
}

template <class Stream>
void WsConnection<Stream>::manage(const wire::ManageSessionsMsg& request) {
  if (auto why = env_.auth->check_manage(channel_, request)) return refuse(why->reason, 0, why->kind);
  decide();
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
void WsConnection<Stream>::answer_operator(std::vector<uint8_t> frame) {
  state_ = State::Answering;  // the next request is read once this answer is out
  arm_request_deadline();
  enqueue(std::make_shared<const std::vector<uint8_t>>(std::move(frame)));
}

// A session this replica does not run is looked for in the record: taken over when its
// holder is gone or released it, asked for when its holder lives (the party is told to come
// back), or, when it has ended, answered with its record.
template <class Stream>
void WsConnection<Stream>::join(const wire::JoinSessionMsg& request) {
  if (auto why = env_.auth->check_join(channel_, request)) return refuse(why->reason, 0, why->kind);
  std::optional<wire::PublicKey> key;
  if (request.party_auth) key = request.party_auth->key;
  signed_join_ = key.has_value();
  state_ = State::Joining;
  request_deadline_.cancel();  // the session's own deadline (or the record's) covers the rest of this connection's life
  env_.registry->find_or_take_over(
      request.session_id, key,
      [self = shared_from_this(), token = request.resume_token, seat = request.seat_token, key,
       statement = PartyStatement::of(request)](SessionRegistry::Found found) {
        asio::post(self->ws_.get_executor(), [self, token, seat, key, statement, found = std::move(found)] {
          if (self->state_ != State::Joining) return;  // closed meanwhile
          if (auto* session = std::get_if<std::shared_ptr<AggregationSession>>(&found))
            return (*session)->join(self, token, key, seat, statement);
          self->turn_away(std::get<Refusal>(found), !token.empty() || !seat.empty());
        });
      });
}

template <class Stream>
void WsConnection<Stream>::turn_away(const Refusal& refusal, bool resuming) {
  if (refusal.outcome_json) {
    // A party back after its session ended gets what the record holds: the signed result it
    // may have missed (it checks it as it would have then), or the abort. One that never had
    // a seat hears an abort too (its reason and culprits are public), never a signed result.
    auto outcome = wire::parse_outcome_record(*refusal.outcome_json);
    if (outcome && (resuming || std::holds_alternative<wire::AbortMsg>(*outcome))) {
      log::info("told a returning party how its session ended", {{"remote", peer_}});
      request_deadline_.cancel();
      std::visit([&](const auto& told) { enqueue(std::make_shared<const std::vector<uint8_t>>(wire::encode(told))); },
                 *outcome);
      return begin_close();
    }
  }
  refuse(refusal.reason, refusal.reconnect_after_ms, refusal.kind);
}

template <class Stream>
void WsConnection<Stream>::refuse(const std::string& reason, uint32_t reconnect_after_ms, wire::RefusalKind kind) {
  if (reconnect_after_ms != 0)
    log::info("asked to join again later", {{"remote", peer_}, {"reason", reason}, {"after_ms", reconnect_after_ms}});
  else
    log::warn("refused", {{"remote", peer_}, {"reason", reason}});
  request_deadline_.cancel();
  enqueue(
      std::make_shared<const std::vector<uint8_t>>(wire::encode(wire::AbortMsg{reason, {}, reconnect_after_ms, kind})));
  begin_close();
}

template <class Stream>
void WsConnection<Stream>::seated(std::weak_ptr<AggregationSession> session, size_t seat, size_t positions) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), session = std::move(session), seat, positions] {
    if (self->state_ == State::Seated) {
      // A quorum's set was fixed: the same party, at its seat in that set.
      self->position_ = seat;
      self->frame_limit_ = std::max(self->env_.config->max_frame_bytes, positions * kShareFrameBytes);
      self->ws_.read_message_max(self->frame_limit_);
      return;
    }
    if (self->state_ != State::Joining) return;  // closed meanwhile
    // A party the session seated under a key its operator listed is no stranger: its socket
    // stops counting against its address (a backend's many sessions from one address).
    if (const auto seated_in = session.lock(); seated_in && seated_in->lists_parties() && self->signed_join_)
      self->ticket_->vouch();
    self->session_ = session;
    self->position_ = seat;
    // A party of k positions sends k proof shares in one frame: its limit grows with k.
    self->frame_limit_ = std::max(self->env_.config->max_frame_bytes, positions * kShareFrameBytes);
    self->ws_.read_message_max(self->frame_limit_);
    self->state_ = State::Seated;
    self->read_frame();  // the frames that followed the join, and every later one
  });
}

template <class Stream>
void WsConnection<Stream>::send(Frame frame) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), frame = std::move(frame)] { self->enqueue(frame); });
}

template <class Stream>
void WsConnection<Stream>::close() {
  asio::post(ws_.get_executor(), [self = shared_from_this()] { self->begin_close(); });
}

template <class Stream>
void WsConnection<Stream>::begin_close() {
  request_deadline_.cancel();
  if (state_ == State::Closing || state_ == State::Closed) return;
  state_ = State::Closing;
  if (queue_.empty()) on_written();
}

template <class Stream>
void WsConnection<Stream>::enqueue(Frame frame) {
  if (state_ == State::Closed) return;
  // An honest peer has a few frames in flight at most (a round's broadcast, an answer); one
  // that stops reading is dropped rather than buffered for.
  if (queue_.size() >= kMaxQueuedFrames) {
    log::warn("peer reads none of its frames; closing", {{"remote", peer_}});
    return drop();
  }
  queue_.push_back(std::move(frame));
  if (queue_.size() == 1) write_front();
}

template <class Stream>
void WsConnection<Stream>::write_front() {
  // The frame stays at the queue's front, and so alive, until its write completes.
  ws_.async_write(asio::buffer(*queue_.front()), [self = shared_from_this()](beast::error_code ec, size_t n) {
    if (self->state_ == State::Closed) return;
    if (ec) return self->drop();
    self->env_.metrics->bytes_out(n);
    self->queue_.pop_front();
    if (!self->queue_.empty()) return self->write_front();
    self->on_written();
  });
}

template <class Stream>
void WsConnection<Stream>::on_written() {
  if (state_ == State::Answering) {
    state_ = State::Operator;
    read_frame();
  } else if (state_ == State::Closing) {
    state_ = State::Closed;
    ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](beast::error_code) {});
  }
}

template <class Stream>
void WsConnection<Stream>::drop() {
  state_ = State::Closed;
  request_deadline_.cancel();
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().close(ignored);
}

}  // namespace bp::server
