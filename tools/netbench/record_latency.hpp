// The dealer's record calls as its /metrics shows them: each operation's count and its
// latency quantiles, estimated from the histogram's buckets (linear within a bucket, as
// Prometheus's histogram_quantile does). For the load row's "record writes" line.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace bp::netbench {

struct RecordCalls {
  uint64_t count = 0;
  double p50_ms = 0, p99_ms = 0;
};

// By operation ("checkpoint", "close", "claim", ...), from bp_record_call_seconds.
std::map<std::string, RecordCalls> record_calls(const std::string& metrics_text);
// An unlabelled counter's value ("bp_final_check_proofs_total"), 0 when absent.
double counter_value(const std::string& metrics_text, const std::string& name);
// GET /metrics from a dealer on loopback ("" when it does not answer).
std::string fetch_metrics(uint16_t port);

}  // namespace bp::netbench
