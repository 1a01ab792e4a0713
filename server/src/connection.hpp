// One class per connection, each on its own strand (after Boost.Beast's async server
// examples). HttpConnection reads requests; an Upgrade hands the socket to a WsConnection,
// which decodes every frame and routes it by the connection's lifecycle state:
//
//   AwaitingRequest --CreateSession/ManageSessions--> Deciding --answered--> Operator
//   Operator --(more of the same)--> Deciding --answered--> Operator
//   AwaitingRequest --JoinSession--> Joining --seated--> Seated
//                                            \--refused--> Closing
//
// Deciding waits for the record (a create claims its id there, a listing reads it).
//
// The state changes only on the connection's strand, in the order frames arrive, and no
// frame is read while a join is being decided: a frame sent behind a JoinSession is read
// once the connection is seated (or never, if the join is refused). So a connection takes at
// most one seat, ever, and a party's first commitment may follow its join in the same write.
// AwaitingRequest and Operator have a deadline for the next request; Seated lives as long as
// its session, which closes it.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <deque>
#include <memory>
#include <optional>

#include "bp/server/config.hpp"
#include "admission.hpp"
#include "auth_policy.hpp"
#include "metrics.hpp"
#include "registry.hpp"
#include "session.hpp"
#include "store/record_service.hpp"
#include "verify_pool.hpp"

namespace bp::server {

// What connections need from the daemon.
struct ConnectionEnv {
  const DealerConfig* config;
  SessionRegistry* registry;
  RecordService* records;
  const std::atomic<bool>* stopping;  // set once the dealer drains: not ready any more
  Metrics* metrics;
  const AuthPolicy* auth;
  const BulletproofGens* bp_gens;  // for POST /v1/verify
  const PedersenGens* pc_gens;
  VerifyPool* verifier;
};

// The two transports: plain TCP (ws://, loopback demos) and TLS over TCP (wss://, https://).
using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

template <class Stream>
class HttpConnection : public std::enable_shared_from_this<HttpConnection<Stream>> {
 public:
  // A refused ticket: the connection reads one request and answers it with the refusal.
  HttpConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket);
  ~HttpConnection();
  void run();

 private:
  void read_request();
  void on_request(boost::beast::error_code ec);
  HttpResponse respond();
  void start_verification();
  void start_lookup(const std::string& id);  // GET /v1/sessions/ID, answered from the record
  // Why a WebSocket upgrade is refused with 503 (the record is down), if it is.
  std::optional<std::string> refuse_upgrade() const;
  void write(std::shared_ptr<HttpResponse> response);
  void close();
  HttpResponse reply(unsigned status, const std::string& content_type, std::string body) const;
  using std::enable_shared_from_this<HttpConnection<Stream>>::shared_from_this;

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  ConnectionEnv env_;
  std::unique_ptr<AdmissionTicket> ticket_;
  std::array<char, 4096> drain_{};
  size_t drained_ = 0;
  bool upgraded_ = false;
};

template <class Stream>
class WsConnection : public PartyLink, public std::enable_shared_from_this<WsConnection<Stream>> {
 public:
  WsConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket);
  ~WsConnection() override;
  void run(boost::beast::http::request<boost::beast::http::string_body> upgrade);

  // PartyLink, called from a session's strand: each posts onto this connection's strand.
  void seated(std::weak_ptr<AggregationSession> session, size_t position) override;
  void send(std::shared_ptr<const std::vector<uint8_t>> frame) override;
  void close() override;
  std::string peer() const override { return peer_; }

 private:
  enum class State { AwaitingRequest, Deciding, Operator, Joining, Seated, Closing };

  void greet();  // Hello: the nonce and channel binding this connection's signatures cover
  void arm_request_deadline();
  void read_frame();
  void on_frame(boost::beast::error_code ec, size_t bytes);
  void on_request(wire::Message message);  // AwaitingRequest or Operator
  void create(const wire::CreateSessionMsg& create);
  void manage(const wire::ManageSessionsMsg& manage);
  void join(const wire::JoinSessionMsg& join);
  SessionOwner owner(const std::optional<wire::KeySignature>& auth) const;
  void refuse(const std::string& reason);  // Abort to an unseated peer, then close
  void answer_operator(std::vector<uint8_t> frame);  // on the strand: Deciding -> Operator
  void join_elsewhere(const std::string& id);        // the session is not here: ask the record where
  void enqueue(std::shared_ptr<const std::vector<uint8_t>> frame);  // on the strand; send() posts here
  void write_next();
  std::shared_ptr<AggregationSession> seat_session() const { return session_.lock(); }
  using std::enable_shared_from_this<WsConnection<Stream>>::shared_from_this;

  boost::beast::websocket::stream<Stream> ws_;
  boost::asio::steady_timer request_deadline_;
  boost::beast::flat_buffer buffer_;
  ConnectionEnv env_;
  std::unique_ptr<AdmissionTicket> ticket_;
  std::string peer_;
  std::deque<std::shared_ptr<const std::vector<uint8_t>>> queue_;
  bool writing_ = false;
  bool close_after_writes_ = false;
  bool closed_ = false;
  bool read_when_written_ = false;  // an operator's next request is read once its answer is out
  static constexpr size_t kMaxQueuedFrames = 32;
  State state_ = State::AwaitingRequest;
  std::weak_ptr<AggregationSession> session_;
  size_t position_ = 0;
  wire::ChannelContext channel_;
  std::string path_session_;  // the session the URL path names (".../v1/session/ID"), if any
};

extern template class HttpConnection<PlainStream>;
extern template class HttpConnection<TlsStream>;
extern template class WsConnection<PlainStream>;
extern template class WsConnection<TlsStream>;

}  // namespace bp::server
