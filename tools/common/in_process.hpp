// Runs a whole aggregation session in one process: m parties and the dealer, every message
// encoded to a protobuf frame and decoded again at each hop, exactly as over a network.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bp/detail/op_tally.hpp"
#include "bp/generators.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/mpc/session.hpp"

namespace bp::cli {

struct InProcessRun {
  bool ok = false;
  std::string error;  // one line when !ok
  mpc::AggregationResult result;
  size_t bytes_up_per_party = 0;    // frames one party sends
  size_t bytes_down_per_party = 0;  // frames one party receives
};

// The dealer's share of a run: the wall time of its steps alone, and (when `tally` is set)
// the group operations they perform (bp bench --limit).
struct DealerMeter {
  double seconds = 0;
  detail::OpTally* tally = nullptr;
};

InProcessRun aggregate_in_process(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                  const mpc::SessionParams& params, const std::vector<uint64_t>& values,
                                  const std::vector<Scalar>& blindings, DealerMeter* dealer_meter = nullptr);

}  // namespace bp::cli
