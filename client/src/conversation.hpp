// One WebSocket conversation with the dealer: connect (TCP, then TLS for wss://), upgrade
// on the session's path, wait for the dealer's Hello, send the opening message (which may
// sign the Hello's nonce and the channel), then hand every decoded frame to the dialogue
// until it is done or fails. One deadline covers the whole conversation; one write is in
// flight at a time. The transport lives here; what to say lives in a Dialogue.
#pragma once

#include <boost/asio/io_context.hpp>
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
};

// Starts a conversation over ws:// or wss:// as the endpoint says, on the session's path
// (empty id: the bare service path). A TLS set-up failure goes to dialogue->on_fail and
// returns null.
std::shared_ptr<Conversation> converse(boost::asio::io_context& ioc, const Endpoint& dealer,
                                       const std::string& session_id, const Options& options, const LinkEmulation& link,
                                       std::shared_ptr<Dialogue> dialogue);

ClientError protocol_error(const std::string& what);

}  // namespace bp::client::detail
