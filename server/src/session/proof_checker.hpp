// Where the sessions' final proofs are checked. A session whose last round is complete hands
// its assembled proof here; a pass on the io_context takes every proof waiting by then and
// checks them in one batch verification (mpc::DealerCheckingProof::check_batch), which costs
// about a third of a verification per proof. Nothing waits to fill a batch: a proof that
// finds no other is checked alone, as soon as its pass runs, so batching adds no latency and
// only appears when sessions end together (a loaded dealer).
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "bp/mpc/dealer.hpp"
#include "observability/metrics.hpp"

namespace bp::server {

class ProofChecker {
 public:
  using Answer = std::function<void(mpc::MpcResult<mpc::AggregationResult>)>;

  // `max_batch` bounds one pass (and so how long a proof can wait behind the others).
  ProofChecker(boost::asio::io_context& ioc, Metrics& metrics, size_t max_batch = 32);
  ProofChecker(const ProofChecker&) = delete;
  ProofChecker& operator=(const ProofChecker&) = delete;

  // Checks the proof and calls `answer` with the result, on an io_context thread (the
  // caller posts it onward to its own strand). A stopped io_context never answers.
  void check(mpc::DealerCheckingProof proof, Answer answer);

 private:
  void pass();

  boost::asio::io_context& ioc_;
  Metrics& metrics_;
  const size_t max_batch_;
  std::mutex mutex_;
  std::vector<mpc::DealerCheckingProof> waiting_;
  std::vector<Answer> answers_;
  bool pass_posted_ = false;  // a pass is queued and has not started: it takes what arrives
};

}  // namespace bp::server
