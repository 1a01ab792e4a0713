// One aggregation session through a dealer over loopback: create it, run its m parties on
// one io_context, wait for every result. Shared by the table, the soak and the load runs.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"

namespace bp::netbench {

struct NetRun {
  double wall_ms = 0;
  size_t up = 0, down = 0;  // bytes one party sent and received
};

std::optional<NetRun> network_session(const client::Endpoint& dealer, size_t bits, size_t m,
                                      const client::Options& options = {}, const client::LinkEmulation& link = {});
// A session of values_per_party.size() parties, party j bringing values_per_party[j] values
// in one seat; `up` and `down` are the bytes of the party with the most values.
std::optional<NetRun> network_session_of(const client::Endpoint& dealer, size_t bits,
                                         const std::vector<uint32_t>& values_per_party,
                                         const client::Options& options = {}, const client::LinkEmulation& link = {});

// `in_flight` client threads each running sessions back to back for `seconds`.
struct LoadRun {
  std::vector<double> latencies_ms;  // of the sessions that completed
  size_t failed = 0;
  double seconds = 0;  // wall time, until the last thread finished its last session
};
LoadRun keep_in_flight(const client::Endpoint& dealer, size_t bits, size_t m, size_t in_flight, double seconds,
                       const client::Options& options = {}, const client::LinkEmulation& link = {});

double ms_since(std::chrono::steady_clock::time_point t0);
// The q-quantile (0..1) of the samples, nearest rank; 0 for none.
double quantile(std::vector<double> samples, double q);

}  // namespace bp::netbench
