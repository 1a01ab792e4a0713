// bp-netbench's runs besides the session table (main.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace bp::netbench {

struct SoakOptions {
  std::string dealer_path;
  size_t sessions = 20000;
  size_t parallel = 8;
  size_t bits = 8, parties = 2;  // per session
  double max_slope_kib = 0;      // > 0: fail when the RSS slope after warm-up is above this (KiB per 1000 sessions)
};
// N sessions (by default 8-bit, two parties) through a bp-dealer child, `parallel` at a time, with
// garbage traffic mixed in; RSS and descriptors at the start, every 1000 sessions and the
// end. Returns the exit status: non-zero on a failed session, a leak of descriptors, or a
// slope over the limit.
int run_soak(const SoakOptions& options);

// Sessions/s and p50/p99 latency of m = 4 sessions with 1, 8 and 64 in flight, idle and
// under a verification flood, a slowloris of 300 connections, and both.
int run_load_table(const std::string& dealer_path, double seconds_per_row);

// Sessions/s and latency through a dealer that is already running (a balancer in front of
// replicas, say): `in_flight` sessions kept going for `seconds`; one table row, or one JSON
// line with `json`.
int run_target_load(const std::string& url, size_t bits, size_t parties, size_t in_flight, double seconds,
                    bool json = false);

}  // namespace bp::netbench
