// Integration-test harness: the real bp-dealer binary as a child process on an ephemeral
// loopback port, raw WebSocket and HTTP clients for the misbehaving-party cases.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bp/client/party_client.hpp"
#include "bp/wire/codec.hpp"

namespace bp::test {

class DealerProcess {
 public:
  // Starts BP_DEALER_PATH --listen 127.0.0.1:0 plus extra flags and waits for its port.
  explicit DealerProcess(std::vector<std::string> extra_flags = {});
  ~DealerProcess();  // SIGKILL if still running
  DealerProcess(const DealerProcess&) = delete;
  DealerProcess& operator=(const DealerProcess&) = delete;

  uint16_t port() const { return port_; }
  client::Endpoint endpoint() const { return {"127.0.0.1", port_}; }
  void kill_hard();                 // SIGKILL and reap
  int terminate_and_wait();         // SIGTERM, wait; returns the exit status (-1 if signalled)
  std::string log() const;          // what it wrote to stderr

 private:
  int pid_ = -1;
  uint16_t port_ = 0;
  std::string log_path_;
};

// GET path over HTTP/1.1; returns (status, body).
std::pair<int, std::string> http_get(uint16_t port, const std::string& path);
// The same over TLS, verifying the dealer against ca_file.
std::pair<int, std::string> https_get(uint16_t port, const std::string& path, const std::string& ca_file);

// A throwaway CA and a server certificate for 127.0.0.1, made with the openssl command.
struct TestPki {
  std::string dir, ca_cert, server_cert, server_key, other_ca_cert;
  TestPki();
  ~TestPki();
};

// A WebSocket client speaking raw frames, for parties that misbehave on purpose.
class RawParty {
 public:
  explicit RawParty(uint16_t port);
  void send(const wire::Message& m);
  void send_bytes(const std::vector<uint8_t>& bytes);
  // The next decoded message, or nullopt if the connection closed or a timeout passed.
  std::optional<wire::Message> receive(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  void close();

 private:
  boost::asio::io_context ioc_;
  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
};

// Creates a session through the client library; REQUIREs success.
std::string create_session(const DealerProcess& dealer, size_t bits, size_t parties, uint32_t round_timeout_ms = 20000);

}  // namespace bp::test
