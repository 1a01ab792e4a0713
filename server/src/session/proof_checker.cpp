#include "session/proof_checker.hpp"

#include <boost/asio/post.hpp>
#include <chrono>

namespace bp::server {

ProofChecker::ProofChecker(boost::asio::io_context& ioc, Metrics& metrics, size_t max_positions_per_pass)
    : ioc_(ioc), metrics_(metrics), max_positions_(max_positions_per_pass) {}

void ProofChecker::check(mpc::DealerCheckingProof proof, size_t positions, Answer answer) {
  std::lock_guard lock(mutex_);
  waiting_.push_back({std::move(proof), positions, std::move(answer)});
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
    size_t positions = 0;
    while (!waiting_.empty() && (proofs.empty() || positions + waiting_.front().positions <= max_positions_)) {
      positions += waiting_.front().positions;
      proofs.push_back(std::move(waiting_.front().proof));
      answers.push_back(std::move(waiting_.front().answer));
      waiting_.pop_front();
    }
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
