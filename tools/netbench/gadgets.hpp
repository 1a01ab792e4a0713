// bp-netbench --gadgets: gadget sessions (wire 1.5) of 2, 4 and 16 parties, every seat a
// range:64 or a shuffle:8, through the in-process dealer: wall time, the dealer's CPU per
// session and the bytes of one party.
#pragma once

#include <functional>

#include "bp/client/party_client.hpp"

namespace bp::netbench {

// `dealer_cpu_ms` reads the dealer's CPU clock (its one worker thread).
int run_gadget_rows(const client::Endpoint& dealer, const std::function<double()>& dealer_cpu_ms, bool quick);

}  // namespace bp::netbench
