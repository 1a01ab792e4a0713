#include "session/proof_checker.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>

namespace bp::server {

ProofChecker::ProofChecker(boost::asio::io_context& ioc, Metrics& metrics, size_t max_positions_per_pass)
    : ioc_(ioc), metrics_(metrics), max_positions_(max_positions_per_pass) {}

void ProofChecker::check(mpc::DealerCheckingProof proof, size_t positions, Answer answer) {
  enqueue({RangeProof{std::move(proof), std::move(answer)}, positions});
}

void ProofChecker::check(mpc::R1CSDealerCheckingProof proof, GadgetAnswer answer) {
  const size_t weight = std::max<size_t>(1, proof.generators() / 64);
  enqueue({GadgetProof{std::move(proof), std::move(answer)}, weight});
}

void ProofChecker::enqueue(Waiting waiting) {
  std::lock_guard lock(mutex_);
  waiting_.push_back(std::move(waiting));
  if (pass_posted_) return;  // the queued pass will take this one too
  pass_posted_ = true;
  boost::asio::post(ioc_, [this] { pass(); });
}

// Passes may run at once on several io threads; each takes its own proofs.
void ProofChecker::pass() {
  std::vector<mpc::DealerCheckingProof> ranges;
  std::vector<Answer> range_answers;
  std::vector<mpc::R1CSDealerCheckingProof> gadgets;
  std::vector<GadgetAnswer> gadget_answers;
  {
    std::lock_guard lock(mutex_);
    size_t weight = 0, taken = 0;
    while (!waiting_.empty() && (taken == 0 || weight + waiting_.front().weight <= max_positions_)) {
      weight += waiting_.front().weight;
      ++taken;
      if (auto* range = std::get_if<RangeProof>(&waiting_.front().what)) {
        ranges.push_back(std::move(range->proof));
        range_answers.push_back(std::move(range->answer));
      } else {
        auto& gadget = std::get<GadgetProof>(waiting_.front().what);
        gadgets.push_back(std::move(gadget.proof));
        gadget_answers.push_back(std::move(gadget.answer));
      }
      waiting_.pop_front();
    }
    // More than one pass holds: the rest goes in the next, which this pass queues now.
    pass_posted_ = !waiting_.empty();
    if (pass_posted_) boost::asio::post(ioc_, [this] { pass(); });
  }
  const auto timed = [&](auto& proofs, auto& answers) {
    if (proofs.empty()) return;
    const auto started = std::chrono::steady_clock::now();
    auto results = std::decay_t<decltype(proofs.front())>::check_batch(std::move(proofs));
    metrics_.final_check(results.size(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    for (size_t k = 0; k < results.size(); ++k) answers[k](std::move(results[k]));
  };
  timed(ranges, range_answers);
  timed(gadgets, gadget_answers);
}

}  // namespace bp::server
