#include "proof/parallel_parts.hpp"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bp::detail {
namespace {

struct Job {
  const std::function<void(unsigned)>* part;
  unsigned parts;
  std::atomic<unsigned> next{1};  // part 0 is the caller's
  std::mutex mutex;
  std::condition_variable finished;
  unsigned done = 0;
  std::exception_ptr failure;

  // Runs the next part nobody has taken; false once every part is taken.
  bool run_one() {
    const unsigned k = next.fetch_add(1);
    if (k >= parts) return false;
    run(k);
    return true;
  }
  void run(unsigned k) {
    std::exception_ptr thrown;
    try {
      (*part)(k);
    } catch (...) {
      thrown = std::current_exception();
    }
    std::lock_guard lock(mutex);
    if (thrown && !failure) failure = thrown;
    if (++done == parts) finished.notify_all();
  }
};

class Workers {
 public:
  // Never destroyed: a worker may still be waiting on it while the process exits.
  static Workers& instance() {
    static Workers* workers = new Workers;
    return *workers;
  }

  // Worker k is offered part k + 1 of every job, so each keeps the buffers of one share of
  // the work (a job of two parts always wakes the same worker, and only that one).
  void offer(const std::shared_ptr<Job>& job, unsigned tickets) {
    tickets = std::min(tickets, kMaxWorkers);
    std::lock_guard lock(mutex_);
    if (owner_ != ::getpid()) {  // a forked child: the parent's workers are not here
      owner_ = ::getpid();
      workers_.clear();
    }
    while (workers_.size() < tickets) {
      workers_.push_back(std::make_unique<Worker>());
      std::thread([this, w = workers_.back().get()] { work(*w); }).detach();
    }
    for (unsigned k = 0; k < tickets; ++k) {
      workers_[k]->queue.push_back(job);
      workers_[k]->wake.notify_one();
    }
  }

 private:
  static constexpr unsigned kMaxWorkers = 256;
  struct Worker {
    std::condition_variable wake;
    std::deque<std::shared_ptr<Job>> queue;
  };

  void work(Worker& me) {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mutex_);
        me.wake.wait(lock, [&me] { return !me.queue.empty(); });
        job = std::move(me.queue.front());
        me.queue.pop_front();
      }
      job->run_one();  // nothing left (the caller took it): the ticket is spent
    }
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;  // a worker's entry outlives it: never erased but after fork
  pid_t owner_ = ::getpid();
};

}  // namespace

void run_parts(unsigned parts, const std::function<void(unsigned)>& part) {
  if (parts <= 1) {
    if (parts == 1) part(0);
    return;
  }
  auto job = std::make_shared<Job>();
  job->part = &part;
  job->parts = parts;
  Workers::instance().offer(job, parts - 1);
  job->run(0);
  while (job->run_one()) {
  }
  std::unique_lock lock(job->mutex);
  job->finished.wait(lock, [&] { return job->done == job->parts; });
  if (job->failure) std::rethrow_exception(job->failure);
}

}  // namespace bp::detail
