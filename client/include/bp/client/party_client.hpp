// The party client: join a dealer's session, answer its rounds, get the aggregated proof.
//
// Everything the dealer sends is validated by the protocol layer (mpc/): challenges are
// recomputed from our own transcript, the final proof is verified and must carry our
// commitment. Errors are typed; nothing throws.
//
//   auto outcome = bp::client::join_and_prove(*bp::client::parse_endpoint("ws://127.0.0.1:8700"),
//                                             session_id, value, blinding);
//   if (outcome) use(outcome->result.proof); else report(bp::client::describe(outcome.error()));
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bp/errors.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/scalar.hpp"
#include "bp/wire/codec.hpp"
#include "bp/wire/identity.hpp"

namespace bp::client {

struct Endpoint {
  std::string host;
  uint16_t port = 0;
  bool tls = false;         // wss://
  std::string path_prefix;  // before "/v1/session/ID" in the WebSocket URL (e.g. "/bp" behind an ingress)
};
// "ws://HOST:PORT[/PREFIX]" or "wss://HOST:PORT[/PREFIX]" (a trailing "/" is allowed).
std::optional<Endpoint> parse_endpoint(std::string_view url);

enum class ClientErrorKind {
  Transport,        // could not connect, or the connection broke
  Timeout,          // the whole exchange took longer than Options::timeout
  Protocol,         // the dealer sent a frame we could not decode, or an unexpected message
  Aborted,          // the dealer aborted the session (reason and blamed positions attached), or refused
                    // us (e.g. "dealer at capacity: ... (HTTP 503)")
  MaliciousDealer,  // the dealer's challenge, result or signature failed our checks
  Refused,          // our own input was refused locally (e.g. value out of range)
};

struct ClientError {
  ClientErrorKind kind;
  std::string detail;
  std::vector<size_t> blamed;
};

// One line, e.g. "abort: round deadline passed in proof_shares blamed=[2]".
std::string describe(const ClientError& e);

struct Options {
  std::chrono::milliseconds timeout{120000};  // per connection, the whole exchange
  // wss:// only: the dealer's certificate must chain to this PEM CA file (default: the
  // system's CAs) and name the host we connected to. Turning verification off has to be
  // asked for by name.
  std::string ca_file;
  bool insecure_skip_verify = false;
  // Our Ed25519 identity: signs the join (a party) or the session request (an operator),
  // bound to the dealer's nonce for this connection. Without one we are anonymous, which
  // only a dealer run with --allow-anonymous accepts.
  std::shared_ptr<const wire::Identity> identity;
  // When set, a dealer whose Hello names another key is refused before we say anything.
  std::optional<wire::PublicKey> dealer_key;
  // A connection that drops after we have a seat is replaced: we join again with the seat's
  // resume token (the dealer holds it for its --reconnect-grace-ms), up to this many times,
  // waiting reconnect_delay before each. Each connection has its own `timeout`.
  unsigned reconnect_attempts = 3;
  std::chrono::milliseconds reconnect_delay{200};
};

struct PartyOutcome {
  size_t position = 0;
  mpc::AggregationResult result;
  wire::Attestation attestation;  // the dealer's signature over the result, already checked
  size_t bytes_sent = 0;      // WebSocket payload bytes, this party
  size_t bytes_received = 0;
};

struct SessionInfo {
  std::string session_id;
  std::string transcript_label;
};

struct SessionRequest {
  size_t bits = 64;
  size_t parties = 1;
  std::string label = "bp";
  uint32_t round_timeout_ms = 0;  // 0: the dealer's default
  // The session id to propose (32 lowercase hex); empty: a random one. Chosen before the
  // session exists, it is in the URL of the create and of every join, so a load balancer
  // can keep the whole session on one dealer replica.
  std::string session_id;
  // The parties' public keys in position order (empty: an anonymous session).
  std::vector<wire::PublicKey> allowed_parties;
};

// An operator's open sessions on the dealer it reached (ManageSessions).
struct SessionListing {
  std::vector<wire::SessionSummary> sessions;
  std::vector<std::string> not_cancelled;  // ids asked to cancel that were not our open sessions
};

template <class T>
using ClientResult = Result<T, ClientError>;

// Asynchronous forms: run on `ioc` (which the caller runs); the handler is called once.
void async_join_and_prove(boost::asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          uint64_t value, const Scalar& blinding, const Options& options,
                          std::function<void(ClientResult<PartyOutcome>)> handler);
void async_create_session(boost::asio::io_context& ioc, const Endpoint& dealer, const SessionRequest& request,
                          const Options& options, std::function<void(ClientResult<SessionInfo>)> handler);
// Lists the open sessions our identity created (anonymous: those created unsigned from our
// address), after cancelling the ones named in `cancel` (their parties get an Abort).
void async_manage_sessions(boost::asio::io_context& ioc, const Endpoint& dealer, const std::vector<std::string>& cancel,
                           const Options& options, std::function<void(ClientResult<SessionListing>)> handler);

// Blocking forms: run their own io_context until done.
ClientResult<PartyOutcome> join_and_prove(const Endpoint& dealer, const std::string& session_id, uint64_t value,
                                          const Scalar& blinding, const Options& options = {});
ClientResult<SessionInfo> create_session(const Endpoint& dealer, const SessionRequest& request,
                                         const Options& options = {});
ClientResult<SessionListing> manage_sessions(const Endpoint& dealer, const std::vector<std::string>& cancel = {},
                                             const Options& options = {});

}  // namespace bp::client
