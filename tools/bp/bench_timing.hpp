// How `bp bench` times one operation: samples paired with the yardstick (one libsodium
// crypto_scalarmult_ristretto255) taken right after each, so a drift of the machine's speed
// falls on both; a row reports the median of each. Runs: at least min_runs, then until about
// budget_s seconds have passed, at most max_runs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bp/backend.hpp"

namespace bp::cli {

struct Timing {
  double us, yardstick_us;
};
Timing measure(const std::function<void()>& fn, const std::function<void()>& yardstick, int min_runs, double budget_s,
               int max_runs);

// Several operations sampled in turn in one loop (each followed by yardsticks), so a drift
// of the machine's speed falls on all of them alike: for rows that are compared with each
// other (thread counts, backends). One Timing per operation, in order.
std::vector<Timing> measure_in_turn(const std::vector<std::function<void()>>& fns,
                                    const std::function<void()>& yardstick, int min_runs, double budget_s,
                                    int max_runs);

// The backends this CPU runs, in kBackends' order.
std::vector<Backend> supported_backends();

// `bp bench --limit`: the distance of each proof operation from what its group operations
// alone cost, per backend (bench_limit.cpp).
int print_limit_rows(bool quick, const std::function<void()>& yardstick);

// `bp bench --r1cs`: prove and verify of constraint-system statements (bench_r1cs.cpp).
int print_r1cs_rows(bool quick, bool json, const std::function<void()>& yardstick);

}  // namespace bp::cli
