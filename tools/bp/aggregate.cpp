#include <sodium.h>

#include <cstdio>

#include "args.hpp"
#include "bp/hex.hpp"
#include "bp/random.hpp"
#include "commands.hpp"
#include "../common/in_process.hpp"
#include "bp/wire/json.hpp"

namespace bp::cli {

int run_aggregate(int argc, char** argv) {
  const Args args(argc, argv, 2, {"bits", "values", "label"}, {});
  const size_t n = parse_bits(args);
  std::vector<uint64_t> values;
  for (const auto& v : split_commas(args.required("values"))) values.push_back(parse_u64(v, "value"));
  if (values.empty() || values.size() > mpc::kMaxPositions) throw UsageError("between 1 and 256 values");

  // A fresh session id, so this proof's label is this run's alone.
  uint8_t id[8];
  randombytes_buf(id, sizeof id);
  const mpc::SessionParams params{n, values.size(),
                                  mpc::session_label(to_hex(id), n, values.size(), args.get("label", "bp"))};
  std::vector<Scalar> blindings(values.size());
  SystemRandom rng;
  for (auto& b : blindings) b = Scalar::random(rng);
  const BulletproofGens bp_gens(n, params.padded_m());
  const PedersenGens pc_gens;
  const InProcessRun run = aggregate_in_process(bp_gens, pc_gens, params, values, blindings);
  for (auto& b : blindings) b.wipe();
  if (!run.ok) {
    std::fprintf(stderr, "error: %s\n", run.error.c_str());
    return 1;
  }
  std::puts(wire::result_json(run.result, std::nullopt).c_str());
  return 0;
}

}  // namespace bp::cli
