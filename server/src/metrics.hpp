// The dealer's counters, exported as Prometheus text on GET /metrics. Lock-free counters;
// histograms take a small mutex (observed once per round, not per message).
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

namespace bp::server {

class Metrics {
 public:
  void session_started() { ++sessions_started_; }
  void session_completed() { ++sessions_completed_; }
  void session_aborted(const std::string& reason);
  void connection_opened() { ++connections_; }
  void connection_closed() { --connections_; }
  void party_joined() { ++parties_connected_; }
  void party_left() { --parties_connected_; }
  void bytes_in(size_t n) { bytes_in_ += n; }
  void bytes_out(size_t n) { bytes_out_ += n; }
  void round_latency(const std::string& round, double seconds);
  // A request or connection turned away by a limit ("503", "431", "verify_rate", "dropped", ...).
  void refused(const std::string& reason);

  long running_sessions() const { return sessions_started_ - sessions_completed_ - aborted_total_; }
  std::string prometheus_text() const;

 private:
  static constexpr std::array<double, 10> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };

  std::atomic<long> sessions_started_{0}, sessions_completed_{0}, aborted_total_{0};
  std::atomic<long> connections_{0}, parties_connected_{0};
  std::atomic<uint64_t> bytes_in_{0}, bytes_out_{0};
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> aborted_by_reason_;
  std::map<std::string, uint64_t> refused_by_reason_;
  std::map<std::string, Histogram> rounds_;
};

}  // namespace bp::server
