// Traffic an attacker sends while honest sessions run, from addresses of its own on the
// loopback range (127.0.0.x), with blocking sockets and short timeouts so every loop ends
// soon after stop(). Three kinds: garbage (malformed frames, requests and joins of every
// sort the dealer must refuse), a verification flood (large batches of bad proofs, back to
// back), and a slowloris (connections that dribble a header or sit upgraded and silent).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bp::netbench {

class HostileTraffic {
 public:
  explicit HostileTraffic(uint16_t port) : port_(port) {}
  ~HostileTraffic() { stop(); }
  HostileTraffic(const HostileTraffic&) = delete;
  HostileTraffic& operator=(const HostileTraffic&) = delete;

  void start_garbage(const std::string& from);
  // One client per address, each sending `body` to POST /v1/verify back to back.
  void start_verify_flood(const std::vector<std::string>& from, const std::string& body);
  // `connections` sockets spread over the addresses, re-opened whenever the dealer drops one.
  void start_slowloris(size_t connections, const std::vector<std::string>& from);
  void stop();

  // "garbage 1234 requests; verify 200:3 429:120 503:40; slowloris 812 connections opened"
  std::string summary() const;

 private:
  void garbage_loop(std::string from);
  void flood_loop(std::string from, const std::string& body);
  void slowloris_loop(size_t connections, std::vector<std::string> from);
  void count_status(int status);

  uint16_t port_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
  std::atomic<size_t> garbage_sent_{0}, slowloris_opened_{0};
  mutable std::mutex mutex_;
  std::map<int, size_t> verify_statuses_;
  std::string flood_body_;
};

}  // namespace bp::netbench
