// Session latency and throughput against the number of sessions in flight, for the plots
// (tools/plots): the curve that says where a dealer saturates.
#pragma once

#include <cstddef>

#include "bp/client/party_client.hpp"

namespace bp::netbench {

struct SweepOptions {
  bool quick = false;  // 1 and 4 in flight, 1 s each: enough to check the output's format
  bool json = false;   // JSON lines (a machine line first) instead of a table
  double seconds = 5;  // per row
  size_t bits = 64, parties = 4;
};

// m-party sessions kept `k` in flight for each k in 1, 2, 4, ... 64, through the dealer at
// `dealer`; one row per k. Returns non-zero when a session failed.
int run_in_flight_sweep(const client::Endpoint& dealer, const SweepOptions& options);

}  // namespace bp::netbench
