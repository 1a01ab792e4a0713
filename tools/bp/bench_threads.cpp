// bp bench --threads: batch verification in process on 1, 2, 4, 8 and 16 threads (and the
// machine's own count), for 1024 proofs of m = 1 and 128 of m = 16 (--quick: a quarter),
// so an operator sizing a verifier reads proofs per second per machine, and how far from
// linear each doubling is. Rows with more threads than cores are measured and marked: on
// such a machine they say what oversubscription costs, not how the code scales.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "../common/machine.hpp"
#include "bench_proofs.hpp"
#include "bench_timing.hpp"
#include "bp/backend.hpp"
#include "bp/json.hpp"

namespace bp::cli {

int print_thread_rows(bool quick, bool json, const std::function<void()>& yardstick) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> counts = {1, 2, 4, 8, 16};
  if (std::find(counts.begin(), counts.end(), cores) == counts.end()) counts.push_back(cores);
  std::sort(counts.begin(), counts.end());
  const double budget = quick ? 0.3 : 1.5;
  const int min_runs = quick ? 2 : 5;
  const BulletproofGens bp_gens(64, 16);
  const PedersenGens pc_gens;
  if (!json) {
    std::printf("%s\n\n", tools::machine_lines().c_str());
    std::printf("| proofs | m | threads | backend | ms | proofs/s | speed-up | per thread | note |\n");
    std::printf("|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
  }
  for (const auto& [m, full] : std::vector<std::pair<size_t, size_t>>{{1, 1024}, {16, 128}}) {
    const size_t count = quick ? full / 4 : full;
    const ProofSet set = make_proofs(bp_gens, pc_gens, 64, m, count);
    // Every thread count sampled in turn, so the speed-ups compare samples of one moment.
    std::vector<std::function<void()>> runs;
    for (unsigned threads : counts) runs.push_back([&, threads] { verify_proof_set(bp_gens, pc_gens, set, threads); });
    const std::vector<Timing> timings = measure_in_turn(runs, yardstick, min_runs, budget, 50);
    const double one_thread_us = timings[0].us;
    for (size_t c = 0; c < counts.size(); ++c) {
      const unsigned threads = counts[c];
      const Timing& t = timings[c];
      const double speedup = one_thread_us / t.us, per_thread = speedup / threads;
      const double per_s = static_cast<double>(count) * 1e6 / t.us;
      const std::string note = threads > cores ? "more threads than the " + std::to_string(cores) + " cores" : "";
      if (json) {
        std::printf("%s\n", JsonObject()
                                .text("op", "verify_batch_threads")
                                .number("proofs", count)
                                .number("m", m)
                                .number("threads", threads)
                                .number("cores", cores)
                                .text("backend", backend_name(active_backend()))
                                .number("us", t.us, 1)
                                .number("yardstick_us", t.yardstick_us, 2)
                                .str()
                                .c_str());
        continue;
      }
      std::printf("| %zu | %zu | %u | %s | %.1f | %.0f | %.2fx | %.2f | %s |\n", count, m, threads,
                  backend_name(active_backend()), t.us / 1000, per_s, speedup, per_thread, note.c_str());
    }
  }
  return 0;
}

}  // namespace bp::cli
