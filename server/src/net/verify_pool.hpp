// Where POST /v1/verify runs: its own few threads at a lower scheduling priority, fed by a
// bounded queue, so a flood of verification requests can neither occupy the threads that
// serve sessions nor queue unbounded work. Each address may submit a few requests a second.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "observability/per_second_counter.hpp"

namespace bp::server {

class VerifyPool {
 public:
  enum class Admit { Queued, RateLimited, QueueFull, Stopped };

  VerifyPool(unsigned threads, size_t queue_limit, uint32_t per_address_per_s);
  ~VerifyPool();
  VerifyPool(const VerifyPool&) = delete;
  VerifyPool& operator=(const VerifyPool&) = delete;

  // Queues `job` unless the address is over its rate or the queue is full.
  Admit submit(const std::string& address, std::function<void()> job);
  // Drops what is queued and joins the threads.
  void stop();

 private:
  void work();

  const size_t queue_limit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  PerSecondCounter requests_;
  std::vector<std::thread> threads_;
};

}  // namespace bp::server
