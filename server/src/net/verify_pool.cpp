#include "net/verify_pool.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace bp::server {

VerifyPool::VerifyPool(unsigned threads, size_t queue_limit, uint32_t per_address_per_s)
    : queue_limit_(queue_limit), requests_(per_address_per_s) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { work(); });
}

VerifyPool::~VerifyPool() { stop(); }

VerifyPool::Admit VerifyPool::submit(const std::string& address, std::function<void()> job) {
  std::lock_guard lock(mutex_);
  if (stopping_) return Admit::Stopped;
  if (requests_.over_limit(address)) return Admit::RateLimited;
  if (queue_.size() >= queue_limit_) return Admit::QueueFull;
  queue_.push_back(std::move(job));
  wake_.notify_one();
  return Admit::Queued;
}

void VerifyPool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void VerifyPool::work() {
  // Linux schedules threads one by one: a nice value on this thread alone lets the session
  // threads win the cores whenever both have work (raising one's own nice needs no privilege).
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

}  // namespace bp::server
