// One WebSocket conversation with the dealer: connect (TCP, then TLS for wss://), upgrade
// on the session's path, wait for the dealer's Hello, send the opening message (which may
// sign the Hello's nonce and the channel), then hand every decoded frame to the dialogue
// until it is done or fails. One deadline covers the whole conversation; one write is in
// flight at a time. The transport lives here; what to say lives in a Dialogue.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"

namespace bp::client::detail {

// What the dealer may send us in one frame: a SessionList of kMaxListedSessions entries and
// a 64-party result fit well inside it; more is refused as a protocol error.
inline constexpr size_t kMaxDealerFrameBytes = size_t{1} << 20;

// What to do after a message: send these frames, then keep reading or finish.
struct Step {
  std::vector<wire::Message> send;
  bool done = false;
  // With done: the conversation ends in this error once `send` is written (the party tells
  // the dealer why it leaves, then reports it).
  std::optional<ClientError> fail_after = std::nullopt;
  // The answer is being computed off the connection's thread: read nothing more until the
  // dialogue hands the conversation its step (Conversation::resume). Only `pending` is read.
  bool pending = false;
};

// The side of a conversation that knows the protocol. Called on the conversation's strand.
class Dialogue {
 public:
  virtual ~Dialogue() = default;
  // The first message, once the dealer's Hello has fixed what signatures are bound to.
  virtual wire::Message opening(const wire::ChannelContext& channel) = 0;
  virtual ClientResult<Step> on_message(wire::Message message, const wire::ChannelContext& channel) = 0;
  // Called at most once, and never after on_message said done.
  virtual void on_fail(ClientError error) = 0;
};

class Conversation {
 public:
  virtual ~Conversation() = default;
  virtual size_t bytes_sent() const = 0;  // WebSocket payload bytes
  virtual size_t bytes_received() const = 0;
  // The step a dialogue computed after saying `pending`: sent and acted on as if on_message
  // had returned it. Ignored once the conversation has ended.
  virtual void resume(ClientResult<Step> step) = 0;
};

// Every handler of a conversation runs on the strand it is given: a run gives each of its
// connections its own strand, so the run's timers and its connections' never run at once.
using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

// Starts a conversation over ws:// or wss:// as the endpoint says, on the session's path
// (empty id: the bare service path). A TLS set-up failure goes to dialogue->on_fail and
// returns null.
std::shared_ptr<Conversation> converse(const Strand& strand, const Endpoint& dealer, const std::string& session_id,
                                       const Options& options, const LinkEmulation& link,
                                       std::shared_ptr<Dialogue> dialogue);

ClientError protocol_error(const std::string& what);
// What an exception caught at the library's edge becomes (std::bad_alloc: out of memory):
// the join ends in this error, never in the exception.
ClientError internal_error(const std::exception& e);

}  // namespace bp::client::detail
