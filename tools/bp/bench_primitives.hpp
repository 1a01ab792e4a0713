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
};

std::vector<PrimitiveRow> bench_primitives(const std::function<void()>& yardstick, bool quick);

}  // namespace bp::cli
