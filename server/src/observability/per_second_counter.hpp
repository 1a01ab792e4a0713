// Events per address in the current one-second window: how the dealer rate-limits new
// connections and verification requests. Not thread-safe: its owner's lock guards it. The
// map is emptied each second, so it holds at most one second's worth of addresses.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace bp::server {

class PerSecondCounter {
 public:
  explicit PerSecondCounter(uint32_t limit) : limit_(limit) {}

  // Counts one event from `address`; true when that makes it more than the limit this second.
  bool over_limit(const std::string& address) {
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ >= std::chrono::seconds(1)) {
      counts_.clear();
      window_start_ = now;
    }
    return ++counts_[address] > limit_;
  }
  uint32_t limit() const { return limit_; }

 private:
  const uint32_t limit_;
  std::unordered_map<std::string, uint32_t> counts_;
  std::chrono::steady_clock::time_point window_start_ = std::chrono::steady_clock::now();
};

}  // namespace bp::server
