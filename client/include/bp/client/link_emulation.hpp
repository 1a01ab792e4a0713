// For benchmarks only: a party whose link is slower than the machine's. Every frame the
// party sends waits `added_latency`, plus its size over the bandwidth, before it goes out
// (bp-netbench --latency-ms, --bandwidth-kbps). Kept out of Options: no backend needs it.
#pragma once

#include <chrono>
#include <cstdint>

#include "bp/client/party_client.hpp"

namespace bp::client {

struct LinkEmulation {
  std::chrono::milliseconds added_latency{0};
  uint64_t bandwidth_bytes_per_second = 0;  // 0: unlimited
};

void async_join_and_prove(boost::asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          uint64_t value, const Scalar& blinding, const Options& options, const LinkEmulation& link,
                          std::function<void(ClientResult<PartyOutcome>)> handler);
void async_join_and_prove(boost::asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                          PartyValues values, const Options& options, const LinkEmulation& link,
                          std::function<void(ClientResult<PartyOutcome>)> handler);

void async_join_gadget_session(boost::asio::io_context& ioc, const Endpoint& dealer, const std::string& session_id,
                               PartyGadget gadget, const Options& options, const LinkEmulation& link,
                               std::function<void(ClientResult<GadgetOutcome>)> handler);

}  // namespace bp::client
