// bp-netbench --churn: sessions of 16, 64 (and 256) parties through the in-process dealer
// where each party fails with probability p at a random point: it never joins, it drops its
// connection at a random moment, or it withdraws from its seat. Each row runs with a quorum of
// half the parties and successors, and again as today's all-or-nothing session: how many
// sessions delivered a proof to every party that did not fail, how many parties each left
// out, the wall time (p50, p99) and the dealer's CPU per session.
#pragma once

#include <functional>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"

namespace bp::netbench {

// `dealer_cpu_ms` reads the dealer's CPU clock (its one worker thread). The dealer holds up to
// 256 positions and a reconnect grace short enough for a dropped party to be noticed.
int run_churn_rows(const client::Endpoint& dealer, const std::function<double()>& dealer_cpu_ms, bool quick,
                   const client::LinkEmulation& link);

}  // namespace bp::netbench
