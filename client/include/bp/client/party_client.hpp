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

#include "bp/bounds.hpp"
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
                    // us (e.g. "this key is not allowed in the session")
  MaliciousDealer,  // the dealer's challenge, result or signature failed our checks
  Refused,          // our own input was refused locally (e.g. value out of range)
  Unavailable,      // the session could not be reached again within the reconnect policy (the
                    // last reason attached): the dealer down, restarting or moving the session
  Internal,         // the party could not go on: out of memory (an allocation failed) or an
                    // unexpected error; the detail says which. The session is left, nothing thrown.
  // The dealer refused the request itself, saying why (a wire 1.6 dealer; an older one's
  // refusals are Aborted):
  NotAllowed,     // our key or signature is not admitted: not an operator's, not on the allow-list
  NoSuchSession,  // the session id is unknown to the dealer and its record
  OverLimit,      // a limit of the dealer's: sessions running, per operator or per address
  RateLimited,    // too many new connections from our address (HTTP 429) until the deadline;
                  // retry_after_ms says when the dealer would take one again
};

struct ClientError {
  ClientErrorKind kind;
  std::string detail;
  std::vector<size_t> blamed;
  // Nonzero: not an end. The dealer asked us to join again after this long (it hands the
  // session to another replica, or waits for its record); also set for a declined upgrade
  // that may pass (HTTP 502, 503, 504).
  uint32_t retry_after_ms = 0;
  // A fault of the path that another connection may not meet (refused, reset, silent, lost),
  // as opposed to one it would meet again (a certificate that does not verify, a bad name).
  bool transient = false;
  // 1.7: the dealer ended the session blaming `blamed` and goes on without them in this
  // successor session. A join not blamed follows it by itself; one blamed ends here,
  // excluded ("excluded: ..."), with this set.
  std::string successor{};
};

// One line, e.g. "abort: round deadline passed in proof_shares blamed=[2]".
std::string describe(const ClientError& e);

// How a party comes back when its connection drops, or the dealer asks it to join again (a
// dealer replica hands the session over, restarts, or waits for its record): it connects
// again, joins with its seat's resume token (a party without a seat yet joins afresh), and
// sends its last message again; a challenge it already answered gets the same answer byte for
// byte, and a different one for the same round is refused (MaliciousDealer): answering two
// challenges for one secret would reveal the value. One outage (from the connection lost to a
// seat held again) is bounded by `attempts` and `give_up_after`, whichever comes first; then
// the run ends with Unavailable and the last reason.
struct ReconnectPolicy {
  unsigned attempts = 20;                          // connections per outage; 0: never reconnect
  std::chrono::milliseconds first_delay{200};      // before the first; doubling after each...
  std::chrono::milliseconds max_delay{5000};       // ...up to this, each with ±20% jitter
  std::chrono::milliseconds give_up_after{60000};  // an outage longer than this ends the run
};

// What a party does, as it happens (for logs, and for checkers that prove a party never
// answered two challenges): see docs/embedding.md. Called on the client's strand; must not block.
struct PartyEvent {
  enum class Kind { Connecting, Joined, Resumed, Answered, Replayed, Reconnecting, GaveUp, Done } kind;
  size_t attempt = 0;                  // Connecting, Reconnecting: the outage's connection count
  size_t position = 0;                 // Joined, Resumed, Answered, Replayed
  int round = 0;                       // Answered, Replayed: 1 (bit challenge) or 2 (poly challenge)
  std::string challenge;               // Answered, Replayed: hex of the challenge's scalars (y||z, or x)
  std::string detail;                  // Reconnecting, GaveUp: why; Done: "ok" or the error
  std::chrono::milliseconds delay{0};  // Reconnecting: the wait before the next connection
};

struct Options {
  // The whole exchange: a join with every reconnection and wait, a create or a listing.
  std::chrono::milliseconds timeout{120000};
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
  ReconnectPolicy reconnect;
  // A dealer that answers none of our pings for this long (paused, cut off) is left, as a
  // dropped connection; the WebSocket upgrade has as long to be answered.
  std::chrono::milliseconds idle_timeout{15000};
  std::function<void(const PartyEvent&)> on_event;  // optional
  // A party's own minimum of parties in its session (an anonymity set): a seat in a session
  // of fewer, or from a dealer before wire 1.7 that does not say, is refused before
  // committing (the same answer whatever the values). 0: any.
  size_t min_session_parties = 0;
};

struct PartyOutcome {
  size_t position = 0;   // our first position
  size_t positions = 1;  // how many we held: one per value, two for a value with both bounds
  mpc::AggregationResult result;
  std::vector<ValueBounds> bounds;  // a bounded session's, one per value of every party (empty: none)
  wire::Attestation attestation;    // the dealer's signature over the result, already checked
  size_t bytes_sent = 0;            // WebSocket payload bytes, this party
  size_t bytes_received = 0;
  // 1.7: the sessions this join went through before the one that made the proof (its
  // attestation's), oldest first; each ended without parties it blamed. Empty: none.
  std::vector<std::string> chain{};
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
  // The parties' public keys in seat order (empty: an anonymous session).
  std::vector<wire::PublicKey> allowed_parties;
  // 1.4: how many values each party brings (empty: one each), and the bounds of every value
  // in party order (empty: each in [0, 2^bits)). A value with both bounds takes two
  // positions; a dealer before 1.4 cannot hold such a session (refused as Protocol).
  std::vector<uint32_t> values_per_party{};
  std::vector<ValueBounds> bounds{};
  // 1.5: a gadget session instead: one gadget per seat, in seat order, as `bp r1cs --gadgets`
  // reads a list ("shuffle:3;range:32;range:32"); `parties` must be its number of items, and
  // bits, values_per_party and bounds are not used.
  std::string gadgets{};
  // 1.7: a quorum. The session starts with the parties present once every listed party has
  // joined, or once join_window_ms (0: the round timeout) ends with at least min_parties of
  // them; their positions and the label follow from that set. 0: every party. A dealer
  // before 1.7 refuses the request (the signature covers the quorum).
  uint32_t min_parties = 0;
  uint32_t join_window_ms = 0;
  // 1.7: a gadget session with a quorum may go on as a successor without the parties it
  // blames, its list without their items (the statement changes: opted into here).
  bool gadget_successors = false;
};

// What a party proves in one session, stated before it connects: k values, each with its
// blinding, the bit size n, and per value its bounds (unset: each value in [0, 2^n)). A value
// with a minimum only is proved in [min, min + 2^n). The seat the dealer gives must be exactly
// this statement (bit size, count of values, bounds), and its transcript label must be this
// session's; otherwise the party withdraws before committing, with the same answer whatever
// its values are. A value outside its own statement is refused before connecting. The client
// wipes its copies of the values and blindings once done.
struct PartyValues {
  std::vector<uint64_t> values;
  std::vector<Scalar> blindings;
  std::optional<std::vector<ValueBounds>> bounds{};
  size_t bits = 64;
};

// 1.5: what a party proves in a gadget session: one gadget (one list item, "range:32",
// "shuffle:3", "member:1|5|10", ...) over its values, one per commitment of the gadget in its
// order, each with its blinding. The values must satisfy the gadget (checked before
// connecting). The seat the dealer gives must be this gadget, in a list whose transcript
// label the party rebuilds from the session id and the list; otherwise the party withdraws
// before committing, with the same answer whatever its values are. Copies are wiped.
struct PartyGadget {
  std::string gadget;
  std::vector<uint64_t> values;
  std::vector<Scalar> blindings;
};

// A gadget session's result, checked: one R1CS proof of the session's list under its label
// that verifies, holds our commitments in our seat, and is signed by the dealer we reached.
struct GadgetOutcome {
  size_t seat = 0;
  wire::R1CSResultMsg result;  // with its attestation
  size_t bytes_sent = 0;       // WebSocket payload bytes, this party
  size_t bytes_received = 0;
  std::vector<std::string> chain{};  // 1.7: the sessions before the proof's, as PartyOutcome's
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
void async_join_and_prove(boost::asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          PartyValues values, const Options& options,
                          std::function<void(ClientResult<PartyOutcome>)> handler);
void async_join_gadget_session(boost::asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                               PartyGadget gadget, const Options& options,
                               std::function<void(ClientResult<GadgetOutcome>)> handler);
void async_create_session(boost::asio::io_context& ioc, const Endpoint& dealer, const SessionRequest& request,
                          const Options& options, std::function<void(ClientResult<SessionInfo>)> handler);
// Lists the open sessions our identity created (anonymous: those created unsigned from our
// address), after cancelling the ones named in `cancel` (their parties get an Abort).
void async_manage_sessions(boost::asio::io_context& ioc, const Endpoint& dealer, const std::vector<std::string>& cancel,
                           const Options& options, std::function<void(ClientResult<SessionListing>)> handler);

// Blocking forms: run their own io_context until done.
ClientResult<PartyOutcome> join_and_prove(const Endpoint& dealer, const std::string& session_id, uint64_t value,
                                          const Scalar& blinding, const Options& options = {});
ClientResult<PartyOutcome> join_and_prove(const Endpoint& dealer, const std::string& session_id, PartyValues values,
                                          const Options& options = {});
ClientResult<GadgetOutcome> join_gadget_session(const Endpoint& dealer, const std::string& session_id,
                                                PartyGadget gadget, const Options& options = {});
ClientResult<SessionInfo> create_session(const Endpoint& dealer, const SessionRequest& request,
                                         const Options& options = {});
ClientResult<SessionListing> manage_sessions(const Endpoint& dealer, const std::vector<std::string>& cancel = {},
                                             const Options& options = {});

}  // namespace bp::client
