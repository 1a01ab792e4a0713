#include "observability/metrics.hpp"

#include <malloc.h>

#include <cstdio>

#include "bp/server/process_stats.hpp"

namespace bp::server {

void Metrics::session_aborted(AbortKind kind) {
  ++aborted_total_;
  ++aborted_by_kind_[static_cast<size_t>(kind)];
}

void Metrics::successor_started(AbortKind kind, size_t excluded) {
  ++successors_by_kind_[static_cast<size_t>(kind)];
  excluded_by_kind_[static_cast<size_t>(kind)] += excluded;
}

void Metrics::refused(const std::string& reason) {
  std::lock_guard lock(mutex_);
  ++refused_by_reason_[reason];
}

void Metrics::observe(Histogram& h, const std::array<double, 10>& buckets, double seconds) {
  for (size_t i = 0; i < buckets.size(); ++i)
    if (seconds <= buckets[i]) ++h.counts[i];
  ++h.count;
  h.sum += seconds;
}

void Metrics::round_latency(const std::string& round, double seconds) {
  std::lock_guard lock(mutex_);
  observe(rounds_[round], kBuckets, seconds);
}

void Metrics::record_call(const std::string& operation, double seconds, bool ok) {
  std::lock_guard lock(mutex_);
  observe(record_calls_[operation], kRecordBuckets, seconds);
  if (!ok) ++record_failures_[operation];
}

void Metrics::verification(const char* result, size_t proofs, double seconds) {
  proofs_verified_ += proofs;
  std::lock_guard lock(mutex_);
  observe(verifications_[result], kBuckets, seconds);
}

void Metrics::print_histogram(std::string& out, const std::string& name, const std::string& label,
                              const std::map<std::string, Histogram>& series, const std::array<double, 10>& buckets) {
  auto line = [&](const std::string& s) { out += s + "\n"; };
  for (const auto& [key, h] : series) {
    const std::string labels = label + "=\"" + key + "\"";
    for (size_t i = 0; i < buckets.size(); ++i) {
      char le[32];
      std::snprintf(le, sizeof le, "%g", buckets[i]);
      line(name + "_bucket{" + labels + ",le=\"" + le + "\"} " + std::to_string(h.counts[i]));
    }
    line(name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(h.count));
    char sum[64];
    std::snprintf(sum, sizeof sum, "%.6f", h.sum);
    line(name + "_sum{" + labels + "} " + sum);
    line(name + "_count{" + labels + "} " + std::to_string(h.count));
  }
}

std::string Metrics::prometheus_text() const {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  auto counter = [&](const char* name, const char* help, uint64_t value) {
    line(std::string("# HELP ") + name + " " + help);
    line(std::string("# TYPE ") + name + " counter");
    line(std::string(name) + " " + std::to_string(value));
  };
  counter("bp_sessions_started_total", "Aggregation sessions created.", sessions_started_);
  counter("bp_sessions_completed_total", "Sessions that ended with a proof.", sessions_completed_);
  counter("bp_sessions_taken_over_total",
          "Sessions this replica rebuilt from the record's checkpoint and went on with.", sessions_taken_over_);
  counter("bp_sessions_moved_total",
          "Sessions this replica stopped running with their parties told to join again (handed over, taken over "
          "elsewhere, or its lease on the record lost).",
          sessions_moved_);
  counter("bp_quorum_sets_fixed_total", "Quorum sessions that fixed their set of parties and went on.", sets_fixed_);
  counter("bp_quorum_parties_left_out_total",
          "Listed parties a quorum session's fixed set left out (never joined, or gone before it was fixed).",
          parties_left_out_);
  counter("bp_session_chains_failed_total",
          "Successor sessions that ended without a proof and without a successor of their own: chains that failed.",
          chains_failed_);
  counter("bp_bytes_in_total", "WebSocket payload bytes received.", bytes_in_);
  counter("bp_bytes_out_total", "WebSocket payload bytes sent.", bytes_out_);
  line("# HELP bp_parties_connected Parties currently seated in a session.");
  line("# TYPE bp_parties_connected gauge");
  line("bp_parties_connected " + std::to_string(parties_connected_.load()));
  line("# HELP bp_connections Open connections.");
  line("# TYPE bp_connections gauge");
  line("bp_connections " + std::to_string(connections_.load()));
  // The standard process metrics, so a leak shows on a dashboard long before it matters.
  line("# HELP process_resident_memory_bytes Resident memory size in bytes.");
  line("# TYPE process_resident_memory_bytes gauge");
  line("process_resident_memory_bytes " + std::to_string(process_rss_kib() * 1024));
  line("# HELP process_max_fds Maximum number of open file descriptors (the soft limit).");
  line("# TYPE process_max_fds gauge");
  line("process_max_fds " + std::to_string(process_max_fds()));
  line("# HELP process_open_fds Number of open file descriptors.");
  line("# TYPE process_open_fds gauge");
  line("process_open_fds " + std::to_string(process_open_fds()));
  char cpu[64];
  std::snprintf(cpu, sizeof cpu, "%.2f", process_cpu_seconds());
  line("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.");
  line("# TYPE process_cpu_seconds_total counter");
  line(std::string("process_cpu_seconds_total ") + cpu);
  // What malloc has handed out and not had back, over all arenas: unlike RSS it is not
  // hidden by free memory the allocator keeps, so a leak shows from its first session.
  const struct mallinfo2 heap = mallinfo2();
  line("# HELP bp_heap_in_use_bytes Bytes allocated with malloc and not yet freed.");
  line("# TYPE bp_heap_in_use_bytes gauge");
  line("bp_heap_in_use_bytes " + std::to_string(heap.uordblks + heap.hblkhd));
  std::lock_guard lock(mutex_);
  line("# HELP bp_sessions_aborted_total Sessions that ended in an abort, by reason.");
  line("# TYPE bp_sessions_aborted_total counter");
  for (const AbortKind kind : kAllAbortKinds)
    line(std::string("bp_sessions_aborted_total{reason=\"") + abort_kind_label(kind) + "\"} " +
         std::to_string(aborted_by_kind_[static_cast<size_t>(kind)].load()));
  // Only the kinds that can exclude a party are exported (the rest never start a successor).
  const auto by_excluding_kind = [&](const char* name, const char* help, const auto& counts) {
    line(std::string("# HELP ") + name + " " + help);
    line(std::string("# TYPE ") + name + " counter");
    for (const AbortKind kind : {AbortKind::RoundTimeout, AbortKind::PartyLeft, AbortKind::ProtocolViolation,
                                 AbortKind::Withdrawn, AbortKind::LostState, AbortKind::InvalidShares})
      line(std::string(name) + "{reason=\"" + abort_kind_label(kind) + "\"} " +
           std::to_string(counts[static_cast<size_t>(kind)].load()));
  };
  by_excluding_kind("bp_successor_sessions_total",
                    "Sessions that went on as a successor without the parties blamed, by why.", successors_by_kind_);
  by_excluding_kind("bp_parties_excluded_total", "Parties a successor session left out, by why.", excluded_by_kind_);
  line("# HELP bp_refused_total Connections and requests turned away by a limit, by what answered them.");
  line("# TYPE bp_refused_total counter");
  for (const auto& [reason, n] : refused_by_reason_)
    line("bp_refused_total{reason=\"" + reason + "\"} " + std::to_string(n));
  line("# HELP bp_round_latency_seconds Time from a round's start until every party's message arrived.");
  line("# TYPE bp_round_latency_seconds histogram");
  print_histogram(out, "bp_round_latency_seconds", "round", rounds_, kBuckets);
  line("# HELP bp_record_call_seconds Time of each call to the outcome record, queueing included, by operation.");
  line("# TYPE bp_record_call_seconds histogram");
  print_histogram(out, "bp_record_call_seconds", "operation", record_calls_, kRecordBuckets);
  line(
      "# HELP bp_verify_seconds Time to parse and verify one POST /v1/verify request, by result (valid, invalid, "
      "malformed).");
  line("# TYPE bp_verify_seconds histogram");
  print_histogram(out, "bp_verify_seconds", "result", verifications_, kBuckets);
  line("# HELP bp_verify_proofs_total Proofs checked through POST /v1/verify.");
  line("# TYPE bp_verify_proofs_total counter");
  line("bp_verify_proofs_total " + std::to_string(proofs_verified_));
  line("# HELP bp_final_check_passes_total Passes of the sessions' final proof checks (each one batch).");
  line("# TYPE bp_final_check_passes_total counter");
  line("bp_final_check_passes_total " + std::to_string(final_check_passes_));
  line("# HELP bp_final_check_proofs_total Sessions' final proofs checked; over the passes, the mean batch.");
  line("# TYPE bp_final_check_proofs_total counter");
  line("bp_final_check_proofs_total " + std::to_string(final_check_proofs_));
  line("# HELP bp_final_check_seconds_total Time spent in the sessions' final proof checks.");
  line("# TYPE bp_final_check_seconds_total counter");
  line("bp_final_check_seconds_total " + std::to_string(static_cast<double>(final_check_micros_) / 1e6));
  line(
      "# HELP bp_record_failures_total Calls to the outcome record that failed (down, full, timed out), by operation.");
  line("# TYPE bp_record_failures_total counter");
  for (const auto& [operation, calls] : record_calls_) {  // every operation called, from 0: a rate needs its start
    const auto failures = record_failures_.find(operation);
    line("bp_record_failures_total{operation=\"" + operation + "\"} " +
         std::to_string(failures == record_failures_.end() ? 0 : failures->second));
  }
  line(
      "# HELP bp_ready 1 while the dealer takes new sessions (/readyz answers 200): the record answers and it is not "
      "draining.");
  line("# TYPE bp_ready gauge");
  line(std::string("bp_ready ") + (record_up_.load() && !draining_.load() ? "1" : "0"));
  line("# HELP bp_record_up 1 while the outcome record answers; 0 while it fails (the dealer is not ready then).");
  line("# TYPE bp_record_up gauge");
  line(std::string("bp_record_up ") + (record_up_ ? "1" : "0"));
  line(
      "# HELP bp_outcomes_unrecorded_total Outcomes the record could not take in time; the session waits in the record "
      "at its last checkpoint, its parties sent to join again.");
  line("# TYPE bp_outcomes_unrecorded_total counter");
  line("bp_outcomes_unrecorded_total " + std::to_string(outcomes_unrecorded_));
  line(
      "# HELP bp_record_fenced_writes_total Writes the record refused because another replica holds the session now "
      "(this one was paused or cut off past the takeover bound).");
  line("# TYPE bp_record_fenced_writes_total counter");
  line("bp_record_fenced_writes_total " + std::to_string(record_fenced_));
  if (const double not_after = tls_not_after_.load(); not_after > 0) {
    line("# HELP bp_tls_certificate_expiry_timestamp_seconds When the TLS certificate the dealer serves expires.");
    line("# TYPE bp_tls_certificate_expiry_timestamp_seconds gauge");
    char value[32];
    std::snprintf(value, sizeof value, "%.0f", not_after);
    line(std::string("bp_tls_certificate_expiry_timestamp_seconds ") + value);
  }
  return out;
}

}  // namespace bp::server
