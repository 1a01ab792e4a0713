#include "session/proof_checker.hpp"

#include <boost/asio/post.hpp>
#include <chrono>

namespace bp::server {

ProofChecker::ProofChecker(boost::asio::io_context& ioc, Metrics& metrics, size_t max_batch)
    : ioc_(ioc), metrics_(metrics), max_batch_(max_batch == 0 ? 1 : max_batch) {}

void ProofChecker::check(mpc::DealerCheckingProof proof, Answer answer) {
  std::lock_guard lock(mutex_);
  waiting_.push_back(std::move(proof));
  answers_.push_back(std::move(answer));
  if (pass_posted_) return;  // the queued pass will take this one too
  pass_posted_ = true;
  boost::asio::post(ioc_, [this] { pass(); });
}

// Passes may run at once on several io threads; each takes its own proofs.
void ProofChecker::pass() {
  std::vector<mpc::DealerCheckingProof> proofs;
  std::vector<Answer> answers;
  {
    std::lock_guard lock(mutex_);
    const size_t take = std::min(waiting_.size(), max_batch_);
    proofs.assign(std::make_move_iterator(waiting_.begin()), std::make_move_iterator(waiting_.begin() + take));
    answers.assign(std::make_move_iterator(answers_.begin()), std::make_move_iterator(answers_.begin() + take));
    waiting_.erase(waiting_.begin(), waiting_.begin() + take);
    answers_.erase(answers_.begin(), answers_.begin() + take);
    // More than one pass holds: the rest goes in the next, which this pass queues now.
    pass_posted_ = !waiting_.empty();
    if (pass_posted_) boost::asio::post(ioc_, [this] { pass(); });
  }
  if (proofs.empty()) return;
  const auto started = std::chrono::steady_clock::now();
  auto results = mpc::DealerCheckingProof::check_batch(std::move(proofs));
  metrics_.final_check(results.size(),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  for (size_t k = 0; k < results.size(); ++k) answers[k](std::move(results[k]));
}

}  // namespace bp::server
