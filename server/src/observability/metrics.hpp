// The dealer's counters, exported as Prometheus text on GET /metrics. Lock-free counters;
// histograms take a small mutex (observed once per round, not per message).
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "observability/abort_kind.hpp"

namespace bp::server {

class Metrics {
 public:
  void session_started() { ++sessions_started_; }
  void session_completed() { ++sessions_completed_; }
  void session_aborted(AbortKind kind);
  // Takeover: a session this replica rebuilt from the record, and one it stopped running
  // (handed over, taken over, or its lease lost) with its parties sent to join again.
  void session_taken_over() { ++sessions_taken_over_; }
  void session_moved() { ++sessions_moved_; }
  // A quorum session fixed its set, leaving out `left_out` listed parties.
  void set_fixed(size_t left_out) {
    ++sets_fixed_;
    parties_left_out_ += left_out;
  }
  // A session that aborted for `kind` goes on as a successor without `excluded` parties.
  void successor_started(AbortKind kind, size_t excluded);
  void chain_failed() { ++chains_failed_; }
  void connection_opened() { ++connections_; }
  void connection_closed() { --connections_; }
  void party_joined() { ++parties_connected_; }
  void party_left() { --parties_connected_; }
  void bytes_in(size_t n) { bytes_in_ += n; }
  void bytes_out(size_t n) { bytes_out_ += n; }
  void round_latency(const std::string& round, double seconds);
  // A request or connection turned away by a limit ("503", "431", "verify_rate", "dropped", ...).
  void refused(const std::string& reason);
  // The record: each call's latency by operation (claim, close, find, heartbeat, ...), the
  // calls that failed, whether it is answering, and outcomes no party was handed because the
  // record could not take them.
  void record_call(const std::string& operation, double seconds, bool ok);
  void record_up(bool up) { record_up_ = up; }
  void draining() { draining_ = true; }  // SIGTERM: no new sessions (bp_ready 0 from now on)
  void outcome_unrecorded() { ++outcomes_unrecorded_; }
  // A write the record refused because another replica holds the session now (this one was
  // paused or cut off past the takeover bound): the epochs did their job.
  void record_fenced() { ++record_fenced_; }
  // POST /v1/verify: one request's answer ("valid", "invalid" or "malformed"), how many
  // proofs it held, and the time from parsing to the answer on the verification pool.
  void verification(const char* result, size_t proofs, double seconds);
  // A pass of the sessions' final proof checks: how many proofs it checked in one batch and
  // how long it took (proofs / passes is the mean batch).
  void final_check(size_t proofs, double seconds) {
    ++final_check_passes_;
    final_check_proofs_ += proofs;
    final_check_micros_ += static_cast<uint64_t>(seconds * 1e6);
  }
  // When the served TLS certificate expires (seconds since the epoch); never set without TLS.
  void tls_certificate_expiry(double not_after) { tls_not_after_ = not_after; }

  std::string prometheus_text() const;

 private:
  static constexpr std::array<double, 10> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};
  // A database round trip on loopback takes well under a millisecond.
  static constexpr std::array<double, 10> kRecordBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                            0.025,  0.05,  0.1,    0.5,   2.5};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };

  std::atomic<long> sessions_started_{0}, sessions_completed_{0}, aborted_total_{0};
  std::atomic<long> sessions_taken_over_{0}, sessions_moved_{0};
  std::atomic<uint64_t> sets_fixed_{0}, parties_left_out_{0}, chains_failed_{0};
  std::array<std::atomic<uint64_t>, kAllAbortKinds.size()> successors_by_kind_{}, excluded_by_kind_{};
  std::atomic<long> connections_{0}, parties_connected_{0};
  std::atomic<uint64_t> bytes_in_{0}, bytes_out_{0};
  mutable std::mutex mutex_;
  std::array<std::atomic<uint64_t>, kAllAbortKinds.size()> aborted_by_kind_{};  // every kind exported, from 0
  std::map<std::string, uint64_t> refused_by_reason_;
  std::map<std::string, Histogram> rounds_;
  std::map<std::string, Histogram> record_calls_;
  std::map<std::string, Histogram> verifications_;  // by result
  std::atomic<uint64_t> proofs_verified_{0};
  std::atomic<uint64_t> final_check_passes_{0}, final_check_proofs_{0}, final_check_micros_{0};
  std::map<std::string, uint64_t> record_failures_;
  std::atomic<bool> record_up_{true};
  std::atomic<bool> draining_{false};
  std::atomic<uint64_t> outcomes_unrecorded_{0};
  std::atomic<uint64_t> record_fenced_{0};
  std::atomic<double> tls_not_after_{0};

  static void observe(Histogram& h, const std::array<double, 10>& buckets, double seconds);
  static void print_histogram(std::string& out, const std::string& name, const std::string& label,
                              const std::map<std::string, Histogram>& series, const std::array<double, 10>& buckets);
};

}  // namespace bp::server
