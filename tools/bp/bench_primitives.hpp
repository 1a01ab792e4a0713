// The primitives under the proof rows of `bp bench`: field, point, encoding, Keccak,
// transcript, multiscalar multiplication per point at several sizes, and the generator
// tables' build time and memory. Each time is a median of batched runs, paired with the
// yardstick like the proof rows.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace bp::cli {

struct PrimitiveRow {
  std::string op;
  size_t size = 0;  // points, for the multiscalar rows
  double ns = 0;    // per operation (per point for multiscalar rows)
  double yardstick_ns = 0;
  std::string note;
  double cycles = 0;  // ns times the core clock measured in the same run
};

struct Primitives {
  std::vector<PrimitiveRow> rows;
  // Measured beside the rows: a chain of dependent 64-bit additions runs at one per core
  // cycle on every x86-64 this project targets, so it gives the clock the CPU really ran
  // at (turbo, a VM's share), where the nominal frequency or the TSC would not.
  double clock_ghz = 0;                           // the mean of the two below
  double clock_start_ghz = 0, clock_end_ghz = 0;  // before and after the rows
};

Primitives bench_primitives(const std::function<void()>& yardstick, bool quick);

// Median over `samples` of `fn` run `iterations` times, in ns per iteration, each sample
// followed by a yardstick sample (its median in the row too).
PrimitiveRow time_op(std::string op, size_t iterations, const std::function<void()>& fn,
                     const std::function<void()>& yardstick, int samples);

// Keeps a value alive so the compiler cannot drop the work that made it.
template <class T>
void keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

}  // namespace bp::cli
