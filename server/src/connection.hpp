// One class per connection, each on its own strand (after Boost.Beast's async server
// examples). HttpConnection reads requests; an Upgrade hands the socket to a WsConnection,
// which decodes every frame and routes it to the registry (session set-up) or to the
// session the party sits in.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <deque>
#include <memory>

#include "bp/server/config.hpp"
#include "auth_policy.hpp"
#include "metrics.hpp"
#include "outcome_store.hpp"
#include "registry.hpp"
#include "session.hpp"

namespace bp::server {

// What connections need from the daemon.
struct ConnectionEnv {
  const DealerConfig* config;
  SessionRegistry* registry;
  OutcomeStore* store;
  Metrics* metrics;
  const AuthPolicy* auth;
  const BulletproofGens* bp_gens;  // for POST /v1/verify
  const PedersenGens* pc_gens;
};

// The two transports: plain TCP (ws://, loopback demos) and TLS over TCP (wss://, https://).
using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

template <class Stream>
class HttpConnection : public std::enable_shared_from_this<HttpConnection<Stream>> {
 public:
  HttpConnection(Stream stream, ConnectionEnv env);
  ~HttpConnection();
  void run();

 private:
  void read_request();
  void on_request(boost::beast::error_code ec);
  boost::beast::http::response<boost::beast::http::string_body> respond();
  template <class Reply>
  boost::beast::http::response<boost::beast::http::string_body> verify_request(Reply& reply);
  using std::enable_shared_from_this<HttpConnection<Stream>>::shared_from_this;

  void close();

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::request<boost::beast::http::string_body> request_;
  ConnectionEnv env_;
  bool upgraded_ = false;
};

template <class Stream>
class WsConnection : public PartyLink, public std::enable_shared_from_this<WsConnection<Stream>> {
 public:
  WsConnection(Stream stream, ConnectionEnv env);
  ~WsConnection() override;
  void run(boost::beast::http::request<boost::beast::http::string_body> upgrade);

  // PartyLink, called from a session's strand: each posts onto this connection's strand.
  void seated(std::weak_ptr<AggregationSession> session, size_t position) override;
  void send(std::shared_ptr<const std::vector<uint8_t>> frame) override;
  void close() override;
  std::string peer() const override { return peer_; }

 private:
  void greet();  // Hello: the nonce and channel binding this connection's signatures cover
  void read_frame();
  void on_frame(boost::beast::error_code ec, size_t bytes);
  void handle(wire::Message message);
  void refuse(const std::string& reason);  // Abort to an unseated peer, then close
  void write_next();
  std::shared_ptr<AggregationSession> seat_session() const { return session_.lock(); }
  using std::enable_shared_from_this<WsConnection<Stream>>::shared_from_this;

  boost::beast::websocket::stream<Stream> ws_;
  boost::beast::flat_buffer buffer_;
  ConnectionEnv env_;
  std::string peer_;
  std::deque<std::shared_ptr<const std::vector<uint8_t>>> queue_;
  bool writing_ = false;
  bool close_after_writes_ = false;
  bool closed_ = false;
  std::weak_ptr<AggregationSession> session_;
  size_t position_ = 0;
  bool seated_ = false;
  wire::ChannelContext channel_;
  std::string path_session_;  // the session the URL path names (".../v1/session/ID"), if any
};

extern template class HttpConnection<PlainStream>;
extern template class HttpConnection<TlsStream>;
extern template class WsConnection<PlainStream>;
extern template class WsConnection<TlsStream>;

}  // namespace bp::server
