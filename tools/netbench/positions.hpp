// bp-netbench --positions: sessions of 64, 128 and 256 positions through the in-process
// dealer, as one value per party and as four parties of many values each (an exchange's
// batch): wall time, the dealer's CPU per session and the bytes of the busiest party.
#pragma once

#include <functional>

#include "bp/client/party_client.hpp"

namespace bp::netbench {

// `dealer_cpu_ms` reads the dealer's CPU clock (its one worker thread).
int run_positions_rows(const client::Endpoint& dealer, const std::function<double()>& dealer_cpu_ms, bool quick);

}  // namespace bp::netbench
