// Where the sessions' final proofs are checked. A session whose last round is complete
// hands its assembled proof here; a pass on the io_context takes the proofs waiting by then
// (up to a bound on their weight) and checks them in one batch verification per kind:
// range proofs with mpc::DealerCheckingProof::check_batch (about a third of a verification
// per proof), gadget sessions' proofs with mpc::R1CSDealerCheckingProof::check_batch.
// Nothing waits to fill a batch: a proof that finds no other is checked alone, as soon as
// its pass runs, so batching adds no latency and appears only when sessions end together
// (a loaded dealer).
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <variant>
#include <vector>

#include "bp/mpc/dealer.hpp"
#include "bp/mpc/r1cs.hpp"
#include "observability/metrics.hpp"

namespace bp::server {

class ProofChecker {
 public:
  using Answer = std::function<void(mpc::MpcResult<mpc::AggregationResult>)>;
  using GadgetAnswer = std::function<void(mpc::MpcResult<R1CSAggregate>)>;

  // A pass takes proofs while their weight adds up to at most `max_positions_per_pass`, and
  // at least one proof. A range proof weighs its positions (padded m); a gadget session's,
  // its generators over 64 (what a position of 64 bits reads). A batch's cost grows with
  // that weight, and a pass holds an io thread while it runs: a pass of 64 positions costs
  // no more than the single verification of a session of 64, which a session that large
  // costs its thread anyway.
  ProofChecker(boost::asio::io_context& ioc, Metrics& metrics, size_t max_positions_per_pass = 64);
  ProofChecker(const ProofChecker&) = delete;
  ProofChecker& operator=(const ProofChecker&) = delete;

  // Checks the proof and calls `answer` with the result, on an io_context thread (the
  // caller posts it onward to its own strand). A stopped io_context never answers.
  // `positions`: the session's padded m.
  void check(mpc::DealerCheckingProof proof, size_t positions, Answer answer);
  // The same for a gadget session's proof.
  void check(mpc::R1CSDealerCheckingProof proof, GadgetAnswer answer);

 private:
  struct RangeProof {
    mpc::DealerCheckingProof proof;
    Answer answer;
  };
  struct GadgetProof {
    mpc::R1CSDealerCheckingProof proof;
    GadgetAnswer answer;
  };
  struct Waiting {
    std::variant<RangeProof, GadgetProof> what;
    size_t weight;
  };
  void enqueue(Waiting waiting);
  void pass();

  boost::asio::io_context& ioc_;
  Metrics& metrics_;
  const size_t max_positions_;
  std::mutex mutex_;
  std::deque<Waiting> waiting_;
  bool pass_posted_ = false;  // a pass is queued and has not started: it takes what arrives
};

}  // namespace bp::server
