// A dealer on loopback that follows a script, for the party's side of the protocol: what a
// party does when the dealer offers seats, labels, broadcasts and results that an honest
// dealer never would. Header-only; each connection runs on the dealer's one thread.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "bp/client/party_client.hpp"
#include "bp/wire/codec.hpp"
#include "bp/wire/identity.hpp"

namespace bp::test {

// One connection of the scripted dealer: its Hello is sent, the party's join read.
class Connection {
 public:
  explicit Connection(boost::asio::ip::tcp::socket socket) : ws_(std::move(socket)) {
    boost::beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(20));
    ws_.accept();
    ws_.binary(true);
    ws_.read_message_max(1 << 20);
  }
  // A 1.4 dealer's Hello unless told another minor version.
  void hello(const wire::Identity& key, uint32_t minor = 4) {
    send(wire::HelloMsg{{7}, key.public_key(), true, false, minor});
  }
  void send(const wire::Message& m) { send_bytes(wire::encode(m)); }
  void send_bytes(const std::vector<uint8_t>& bytes) {
    boost::beast::error_code ec;
    ws_.write(boost::asio::buffer(bytes), ec);
  }
  // The next frame's bytes; empty when the party closed or went silent.
  std::vector<uint8_t> receive_bytes() {
    boost::beast::flat_buffer buffer;
    boost::beast::error_code ec;
    ws_.read(buffer, ec);
    if (ec) return {};
    const auto* data = static_cast<const uint8_t*>(buffer.data().data());
    return {data, data + buffer.data().size()};
  }
  std::optional<wire::Message> receive() {
    const auto bytes = receive_bytes();
    if (bytes.empty()) return std::nullopt;
    auto decoded = wire::decode(bytes, wire::Limits{1 << 20});
    return decoded ? std::optional<wire::Message>(std::move(*decoded)) : std::nullopt;
  }
  void drop() {
    boost::beast::error_code ignored;
    boost::beast::get_lowest_layer(ws_).socket().close(ignored);
  }

 private:
  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
};

// A dealer on loopback that runs `script` on every connection until it is destroyed.
class ScriptedDealer {
 public:
  using Script = std::function<void(Connection&, int index)>;
  explicit ScriptedDealer(Script script)
      : script_(std::move(script)), acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedDealer() {
    stop_ = true;
    boost::asio::ip::tcp::socket wake(ioc_);  // unblocks accept
    boost::beast::error_code ignored;
    wake.connect(acceptor_.local_endpoint(), ignored);
    thread_.join();
  }
  client::Endpoint endpoint() const { return {"127.0.0.1", acceptor_.local_endpoint().port(), false, ""}; }
  int connections() const { return connections_; }
  const wire::Identity key = wire::Identity::generate();

 private:
  void serve() {
    for (int index = 0; !stop_; ++index) {
      boost::beast::error_code ec;
      auto socket = acceptor_.accept(ec);
      if (ec || stop_) return;
      ++connections_;
      try {
        Connection c(std::move(socket));
        script_(c, index);
      } catch (const std::exception&) {
        // The party hung up mid-handshake: the next connection, if any.
      }
    }
  }
  Script script_;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

inline client::Options quick_options() {
  client::Options options;
  options.timeout = std::chrono::seconds(20);
  options.reconnect.attempts = 0;
  return options;
}

}  // namespace bp::test
