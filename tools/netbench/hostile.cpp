#include "hostile.hpp"

#include "raw_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sodium.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "bp/hex.hpp"
#include "bp/wire/codec.hpp"

namespace bp::netbench {
namespace {

int status_of(const std::string& response) {
  return response.rfind("HTTP/1.1 ", 0) == 0 && response.size() >= 12 ? std::atoi(response.substr(9, 3).c_str()) : 0;
}

const char* const kUpgrade =
    "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

// A client's binary WebSocket frame (RFC 6455 5.2: masked, lengths up to 64 KiB).
std::string masked_frame(const std::vector<uint8_t>& payload) {
  std::string out = "\x82";
  if (payload.size() < 126) {
    out += static_cast<char>(0x80 | payload.size());
  } else {
    out += static_cast<char>(0x80 | 126);
    out += static_cast<char>(payload.size() >> 8);
    out += static_cast<char>(payload.size() & 0xff);
  }
  const uint8_t mask[4] = {0x5a, 0x17, 0xc3, 0x88};
  out.append(reinterpret_cast<const char*>(mask), 4);
  for (size_t i = 0; i < payload.size(); ++i) out += static_cast<char>(payload[i] ^ mask[i % 4]);
  return out;
}

std::vector<uint8_t> random_bytes(size_t n) {
  std::vector<uint8_t> out(n);
  randombytes_buf(out.data(), out.size());
  return out;
}

}  // namespace

void HostileTraffic::start_garbage(const std::string& from) {
  threads_.emplace_back([this, from] { garbage_loop(from); });
}

void HostileTraffic::start_verify_flood(const std::vector<std::string>& from, const std::string& body) {
  flood_body_ = "POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body;
  for (const auto& address : from) threads_.emplace_back([this, address] { flood_loop(address, flood_body_); });
}

void HostileTraffic::start_slowloris(size_t connections, const std::vector<std::string>& from) {
  threads_.emplace_back([this, connections, from] { slowloris_loop(connections, from); });
}

void HostileTraffic::stop() {
  stopping_ = true;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void HostileTraffic::count_status(int status) {
  std::lock_guard lock(mutex_);
  ++verify_statuses_[status];
}

std::string HostileTraffic::summary() const {
  std::vector<std::string> parts;
  if (garbage_sent_ != 0) parts.push_back("garbage " + std::to_string(garbage_sent_.load()) + " requests");
  {
    std::lock_guard lock(mutex_);
    if (!verify_statuses_.empty()) {
      std::string verify = "verify answers";
      for (const auto& [status, n] : verify_statuses_) verify += " " + std::to_string(status) + ":" + std::to_string(n);
      parts.push_back(verify);
    }
  }
  if (slowloris_opened_ != 0)
    parts.push_back("slowloris " + std::to_string(slowloris_opened_.load()) + " connections opened");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

void HostileTraffic::garbage_loop(std::string from) {
  using namespace std::chrono_literals;
  for (uint32_t round = 0; !stopping_; ++round) {
    // Short: a refused peer is expected to answer the dealer's close frame, which we never do.
    const int fd = connect_from(from, port_, 300ms);
    if (fd < 0) {
      std::this_thread::sleep_for(10ms);
      continue;
    }
    ++garbage_sent_;
    switch (round % 8) {
      case 0:  // random bytes in a WebSocket frame
        if (send_all(fd, kUpgrade)) send_all(fd, masked_frame(random_bytes(1 + randombytes_uniform(600))));
        break;
      case 1:  // a join to a session that does not exist, twice in one write
      {
        const auto join = wire::encode(wire::JoinSessionMsg{wire::random_session_id(), {}, std::nullopt});
        if (send_all(fd, kUpgrade)) send_all(fd, masked_frame(join) + masked_frame(join));
        break;
      }
      case 2:  // not HTTP at all
      {
        const auto noise = random_bytes(1 + randombytes_uniform(300));
        send_all(fd, std::string(noise.begin(), noise.end()) + "\r\n\r\n");
        break;
      }
      case 3:
        send_all(fd,
                 "GET /v1/sessions/" + wire::random_session_id() + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        break;
      case 4:
        send_all(
            fd, "POST /v1/verify HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 11\r\n\r\n{\"bits\":7}\n");
        break;
      case 5:  // connect and hang up
        break;
      case 6: send_all(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(9000, 'p') + "\r\n\r\n"); break;
      case 7:  // a WebSocket frame over the size limit
        if (send_all(fd, kUpgrade)) send_all(fd, masked_frame(random_bytes(65000)));
        break;
    }
    if (round % 8 != 5) read_until_close(fd);
    close(fd);
  }
}

void HostileTraffic::flood_loop(std::string from, const std::string& request) {
  using namespace std::chrono_literals;
  while (!stopping_) {
    const int fd = connect_from(from, port_, 60s);
    if (fd < 0) {
      std::this_thread::sleep_for(10ms);
      continue;
    }
    const int status = send_all(fd, request) ? status_of(read_until_close(fd)) : 0;
    count_status(status);
    close(fd);
  }
}

void HostileTraffic::slowloris_loop(size_t connections, std::vector<std::string> from) {
  using namespace std::chrono_literals;
  std::vector<int> fds(connections, -1);
  while (!stopping_) {
    for (size_t i = 0; i < fds.size() && !stopping_; ++i) {
      // Even slots dribble an HTTP header a line a second; odd ones upgrade and stay silent.
      const bool dribble = i % 2 == 0;
      if (fds[i] >= 0) {
        char probe;
        const ssize_t n = recv(fds[i], &probe, 1, MSG_DONTWAIT | MSG_PEEK);
        const bool closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
        if (n > 0) {
          char drop[4096];
          (void)!recv(fds[i], drop, sizeof drop, MSG_DONTWAIT);
        }
        if (closed || (dribble && send(fds[i], "X-a: b\r\n", 8, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)) {
          close(fds[i]);
          fds[i] = -1;
        }
      }
      if (fds[i] < 0) {
        fds[i] = connect_from(from[i % from.size()], port_, 1s);
        if (fds[i] < 0) continue;
        ++slowloris_opened_;
        send_all(fds[i], dribble ? std::string("GET /healthz HTTP/1.1\r\nHost: x\r\n") : std::string(kUpgrade));
      }
    }
    for (int k = 0; k < 10 && !stopping_; ++k) std::this_thread::sleep_for(100ms);
  }
  for (int fd : fds)
    if (fd >= 0) close(fd);
}

}  // namespace bp::netbench
