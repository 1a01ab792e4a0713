// Integration-test harness: the real bp-dealer binary as a child process on an ephemeral
// loopback port, raw WebSocket and HTTP clients for the misbehaving-party cases.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "bp/client/party_client.hpp"
#include "bp/mpc/party.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"

namespace bp::test {

class DealerProcess {
 public:
  // Starts BP_DEALER_PATH --listen 127.0.0.1:0 plus extra flags and waits for its port.
  // Without an --operator-key among the flags it runs with --allow-anonymous.
  // With nofile_limit, the dealer starts under that RLIMIT_NOFILE (soft and hard).
  explicit DealerProcess(std::vector<std::string> extra_flags = {},
                         std::optional<unsigned> nofile_limit = std::nullopt);
  ~DealerProcess();  // SIGKILL if still running
  DealerProcess(const DealerProcess&) = delete;
  DealerProcess& operator=(const DealerProcess&) = delete;

  uint16_t port() const { return port_; }
  int pid() const { return pid_; }
  client::Endpoint endpoint() const { return {"127.0.0.1", port_, false, ""}; }
  void kill_hard();          // SIGKILL and reap
  int terminate_and_wait();  // SIGTERM, wait; returns the exit status (-1 if signalled)
  std::string log() const;   // what it wrote to stderr

 private:
  int pid_ = -1;
  uint16_t port_ = 0;
  std::string log_path_;
};

// GET path over HTTP/1.1; returns (status, body).
std::pair<int, std::string> http_get(uint16_t port, const std::string& path);
// POST body to path over HTTP/1.1; returns (status, body).
std::pair<int, std::string> http_post(uint16_t port, const std::string& path, const std::string& body);
// Any bytes as a request; returns everything the dealer answered until it closed (or 10 s).
std::string http_raw(uint16_t port, const std::string& request, const std::string& local_address = "");
// The status code of an HTTP response's first line (0 if there is none).
int http_status(const std::string& response);
// The same over TLS, verifying the dealer against ca_file.
std::pair<int, std::string> https_get(uint16_t port, const std::string& path, const std::string& ca_file);

// A throwaway CA and a server certificate for 127.0.0.1, made with the openssl command.
struct TestPki {
  std::string dir, ca_cert, server_cert, server_key, other_ca_cert;
  TestPki();
  ~TestPki();
};

// A WebSocket client speaking raw frames, for parties that misbehave on purpose. It reads
// the dealer's Hello on connecting.
class RawParty {
 public:
  // From local_address (any 127.x.y.z is this machine) when given.
  explicit RawParty(uint16_t port, const std::string& target = "/", const std::string& local_address = "");
  const wire::ChannelContext& channel() const { return channel_; }
  // A join signed for this connection by `identity` (anonymous when null).
  wire::JoinSessionMsg join_message(const std::string& session, std::vector<uint8_t> token,
                                    const wire::Identity* identity) const;
  void send(const wire::Message& m);
  void send_bytes(const std::vector<uint8_t>& bytes);
  // Several messages as WebSocket frames in ONE write on the socket, so they arrive together.
  void send_in_one_write(const std::vector<wire::Message>& messages);
  // The next decoded message, or nullopt if the connection closed or a timeout passed.
  std::optional<wire::Message> receive(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  void close();

 private:
  boost::asio::io_context ioc_;
  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
  wire::ChannelContext channel_;
};

// A TCP relay in front of the dealer that cuts its first connection just as the dealer's
// `cut_at_frame`-th WebSocket frame (1-based, after the HTTP upgrade) begins; later
// connections pass untouched. For clients that must survive a dropped connection.
class CuttingProxy {
 public:
  CuttingProxy(uint16_t dealer_port, int cut_at_frame);
  ~CuttingProxy();
  CuttingProxy(const CuttingProxy&) = delete;
  CuttingProxy& operator=(const CuttingProxy&) = delete;
  client::Endpoint endpoint() const { return {"127.0.0.1", port_, false, ""}; }
  int connections() const { return connections_; }

 private:
  struct Pipe;
  void accept();
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t dealer_port_;
  int cut_at_frame_;
  uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// The bit size a session was created with (64 for one the harness did not create), which its
// parties state; remember_bits records one created another way.
size_t bits_of(const std::string& session);
void remember_bits(const std::string& session, size_t bits);
// One value stated as the session's parties state it: below 2^bits_of(session).
client::PartyValues stated(const std::string& session, uint64_t value, const Scalar& blinding);
// Creates a session through the client library; REQUIREs success.
std::string create_session(const DealerProcess& dealer, size_t bits, size_t parties, uint32_t round_timeout_ms = 20000);

struct Outcomes {
  std::vector<client::ClientResult<client::PartyOutcome>> results;
};

// Runs `values.size()` honest parties concurrently on one io_context; party i signs with
// identities[i] when given.
Outcomes run_parties(const DealerProcess& dealer, const std::string& session, const std::vector<uint64_t>& values,
                     std::chrono::milliseconds timeout = std::chrono::seconds(60),
                     const std::vector<std::shared_ptr<const wire::Identity>>& identities = {});
// The same at any endpoint, party i with options[i] (the last one for the rest).
Outcomes run_parties_at(const client::Endpoint& endpoint, const std::string& session,
                        const std::vector<uint64_t>& values, const std::vector<client::Options>& options);
void check_all_succeeded(const Outcomes& o, size_t m);
// Waits for the honest parties' outcomes and checks they all got an abort blaming `blamed`.
void check_aborted_with_blame(std::thread& honest, const Outcomes& o, std::vector<size_t> blamed);

// A party seated through a raw connection, so a test can interfere at any later step.
struct Seated {
  std::unique_ptr<RawParty> party;
  wire::JoinedMsg joined;
  RawParty& raw() { return *party; }
};
Seated join_raw(const DealerProcess& dealer, const std::string& session, const wire::Identity* identity = nullptr);

// The real protocol for a party sitting at a raw connection: builds its state and sends its
// bit commitment.
struct ManualParty {
  std::unique_ptr<BulletproofGens> gens;  // stable address: the party state points at it
  std::optional<mpc::PartyAwaitingBitChallenge> awaiting_bits;
};
ManualParty commit_manually(Seated& seated, uint64_t value);
// Then the two challenge rounds: answers the bit challenge, and returns the state awaiting
// the result with the proof share, not yet sent (a test may send it, or a corrupted one).
std::pair<mpc::PartyAwaitingResult, ProofShare> answer_challenges(Seated& seated, ManualParty& manual);

// Waits until `count` parties sit in sessions on this dealer (its /metrics gauge), so a test
// knows which position the next joiner gets without guessing at timing.
void wait_for_seated(const DealerProcess& dealer, int count);

}  // namespace bp::test
