// One WebSocket connection, on its own strand. It decodes every frame and routes it by the
// connection's lifecycle state, the one record of where the connection is:
//
//   AwaitingRequest --CreateSession/ManageSessions--> Deciding --answered--> Answering
//   Answering --answer written--> Operator --(more of the same)--> Deciding ...
//   AwaitingRequest --JoinSession--> Joining --seated--> Seated
//                                    (Joining waits for the record when the session runs elsewhere)
//   any --refused, or the session ends--> Closing --queue written--> Closed
//
// Deciding waits for the record (a create claims its id there, a listing reads it).
//
// The state changes only on the strand, in the order frames arrive, and a frame is read only
// in AwaitingRequest, Operator and Seated: a frame sent behind a JoinSession is read once the
// connection is seated (or never, if the join is refused), and an operator's next request
// once the answer to the last is written. So a connection takes at most one seat, ever, a
// party's first commitment may follow its join in the same write, and a peer that sends
// requests without reading the answers gets no more of its frames read. AwaitingRequest and
// Operator have a deadline for the next request; Seated lives as long as its session, which
// closes it. One write is in flight at a time: the queue's front.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <deque>
#include <memory>

#include "net/admission.hpp"
#include "net/connection_env.hpp"
#include "session/session.hpp"

namespace bp::server {

template <class Stream>
class WsConnection : public PartyLink, public std::enable_shared_from_this<WsConnection<Stream>> {
 public:
  WsConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket);
  ~WsConnection() override;
  void run(HttpRequest upgrade);

  // PartyLink, called from a session's strand: each posts onto this connection's strand.
  void seated(std::weak_ptr<AggregationSession> session, size_t seat, size_t positions) override;
  void send(std::shared_ptr<const std::vector<uint8_t>> frame) override;
  void close() override;
  std::string peer() const override { return peer_; }

 private:
  enum class State { AwaitingRequest, Deciding, Answering, Operator, Joining, Seated, Closing, Closed };
  using Frame = std::shared_ptr<const std::vector<uint8_t>>;

  void greet();  // Hello: the nonce and channel binding this connection's signatures cover
  void arm_request_deadline();
  void read_frame();
  void on_frame(boost::beast::error_code ec, size_t bytes);
  void on_request(wire::Message message);  // AwaitingRequest or Operator
  void create(const wire::CreateSessionMsg& create);
  void manage(const wire::ManageSessionsMsg& manage);
  void join(const wire::JoinSessionMsg& join);
  // A join the registry could not seat; a party resuming its seat in a session that ended
  // gets the session's outcome from the record.
  void turn_away(const Refusal& refusal, bool resuming);
  SessionOwner owner(const std::optional<wire::KeySignature>& auth) const;
  void decide();                                     // -> Deciding: the request's answer comes from elsewhere
  void answer_operator(std::vector<uint8_t> frame);  // Deciding -> Answering
  // Abort to an unseated peer, then close; with reconnect_after_ms, "join again then".
  void refuse(const std::string& reason, uint32_t reconnect_after_ms = 0,
              wire::RefusalKind kind = wire::RefusalKind::None);
  void begin_close();         // on the strand: -> Closing, or Closed at once
  void enqueue(Frame frame);  // on the strand; send() posts here
  void write_front();
  void on_written();  // the queue is empty: what the state asks for next
  void drop();        // -> Closed without a close handshake
  std::shared_ptr<AggregationSession> seat_session() const { return session_.lock(); }
  using std::enable_shared_from_this<WsConnection<Stream>>::shared_from_this;

  static constexpr size_t kMaxQueuedFrames = 32;

  boost::beast::websocket::stream<Stream> ws_;
  boost::asio::steady_timer request_deadline_;
  boost::beast::flat_buffer buffer_;
  ConnectionEnv env_;
  std::unique_ptr<AdmissionTicket> ticket_;
  std::string peer_;
  std::deque<Frame> queue_;
  State state_ = State::AwaitingRequest;
  std::weak_ptr<AggregationSession> session_;
  size_t position_ = 0;  // the seat (party) index once seated
  // The largest frame read: the configured one, and for a seated party of k positions at
  // least k proof shares (n = 64) and their framing.
  static constexpr size_t kShareFrameBytes = 4400;
  size_t frame_limit_ = 0;
  wire::ChannelContext channel_;
  std::string path_session_;  // the session the URL path names (".../v1/session/ID"), if any
  bool signed_join_ = false;  // the join carried a party key (a listing session seated it only if listed)
};

extern template class WsConnection<PlainStream>;
extern template class WsConnection<TlsStream>;

}  // namespace bp::server
