// bp bench: proving and verification times against a yardstick measured in the same run
// (one libsodium crypto_scalarmult_ristretto255), so figures compare across machines.
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "bench_primitives.hpp"
#include "bench_proofs.hpp"
#include "bench_timing.hpp"
#include "bp/json.hpp"
#include "bp/backend.hpp"
#include "bp/batch_verification.hpp"
#include "bp/random.hpp"
#include "bp/range_proof.hpp"
#include "bp/mpc/session.hpp"
#include "commands.hpp"
#include "../common/in_process.hpp"
#include "../common/machine.hpp"

namespace bp::cli {

using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double elapsed_us(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

}  // namespace

Timing measure(const std::function<void()>& fn, const std::function<void()>& yardstick, int min_runs, double budget_s,
               int max_runs) {
  std::vector<double> samples, sticks;
  const auto start = Clock::now();
  while (static_cast<int>(samples.size()) < min_runs ||
         (std::chrono::duration<double>(Clock::now() - start).count() < budget_s &&
          static_cast<int>(samples.size()) < max_runs)) {
    samples.push_back(elapsed_us(fn));
    for (int k = 0; k < 5; ++k) sticks.push_back(elapsed_us(yardstick));
  }
  return {median(samples), median(sticks)};
}

std::vector<Timing> measure_in_turn(const std::vector<std::function<void()>>& fns,
                                    const std::function<void()>& yardstick, int min_runs, double budget_s,
                                    int max_runs) {
  std::vector<std::vector<double>> samples(fns.size()), sticks(fns.size());
  const auto start = Clock::now();
  const double budget = budget_s * static_cast<double>(fns.size());
  for (int run = 0;
       run < min_runs || (std::chrono::duration<double>(Clock::now() - start).count() < budget && run < max_runs);
       ++run)
    for (size_t f = 0; f < fns.size(); ++f) {
      samples[f].push_back(elapsed_us(fns[f]));
      for (int k = 0; k < 5; ++k) sticks[f].push_back(elapsed_us(yardstick));
    }
  std::vector<Timing> out;
  for (size_t f = 0; f < fns.size(); ++f) out.push_back({median(samples[f]), median(sticks[f])});
  return out;
}

std::vector<Backend> supported_backends() {
  std::vector<Backend> out;
  for (Backend b : kBackends)
    if (backend_supported(b)) out.push_back(b);
  return out;
}

namespace {

// The same operation on several backends, their samples taken in turn in one loop (with a
// yardstick after each), so a drift of the machine's speed falls on every backend alike and
// cannot decide which is faster. set_backend switches between samples; the active backend
// is restored.
std::vector<Timing> measure_backends(const std::vector<Backend>& backends, const std::function<void()>& fn,
                                     const std::function<void()>& yardstick, int min_runs, double budget_s,
                                     int max_runs) {
  const Backend active = active_backend();
  std::vector<std::vector<double>> samples(backends.size()), sticks(backends.size());
  const auto start = Clock::now();
  const double budget = budget_s * static_cast<double>(backends.size());
  for (int run = 0;
       run < min_runs || (std::chrono::duration<double>(Clock::now() - start).count() < budget && run < max_runs);
       ++run) {
    for (size_t b = 0; b < backends.size(); ++b) {
      set_backend(backends[b]);
      samples[b].push_back(elapsed_us(fn));
      for (int k = 0; k < 5; ++k) sticks[b].push_back(elapsed_us(yardstick));
    }
  }
  set_backend(active);
  std::vector<Timing> out;
  for (size_t b = 0; b < backends.size(); ++b) out.push_back({median(samples[b]), median(sticks[b])});
  return out;
}

struct Row {
  std::string op;
  size_t n, m;
  Timing t;
  size_t bytes_up = 0, bytes_down = 0;  // per party, aggregate rows only
  size_t batch = 0;                     // verify_batch and final_check_batch rows: proofs in the batch
  unsigned threads = 1;
  std::string backend = backend_name(active_backend());
  bool interleaved = false;  // one of the backends' rows measured in turn
  bool fastest = false;      // interleaved rows: the fastest backend of its group
};

// One row per backend from interleaved timings, the fastest marked.
void add_interleaved_rows(std::vector<Row>& rows, Row prototype, const std::vector<Backend>& backends,
                          const std::vector<Timing>& timings) {
  size_t best = 0;
  for (size_t b = 1; b < timings.size(); ++b)
    if (timings[b].us / timings[b].yardstick_us < timings[best].us / timings[best].yardstick_us) best = b;
  for (size_t b = 0; b < backends.size(); ++b) {
    Row row = prototype;
    row.t = timings[b];
    row.backend = backend_name(backends[b]);
    row.interleaved = true;
    row.fastest = b == best;
    rows.push_back(row);
  }
}

// One prove row and one verify row for random values of n bits, m of them, on the active
// backend.
void add_prove_verify_rows(std::vector<Row>& rows, const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                           size_t n, size_t m, const std::function<void()>& yardstick, int min_runs, double budget) {
  const Witness w = random_witness(n, m);
  const auto& values = w.values;
  const auto& blindings = w.blindings;
  std::vector<uint8_t> proof_bytes;
  std::vector<CompressedRistretto> commitments;
  const Timing prove = measure(
      [&] {
        Transcript t("bench");
        auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, t, values, blindings, n);
        if (!proved) std::abort();
        proof_bytes = proved->proof.to_bytes();
        commitments = proved->commitments;
      },
      yardstick, min_runs, budget, 200);
  const RangeProof proof = *RangeProof::from_bytes(proof_bytes);
  const Timing verify = measure(
      [&] {
        Transcript t("bench");
        if (!proof.verify_multiple(bp_gens, pc_gens, t, commitments, n)) std::abort();
      },
      yardstick, min_runs, budget, 500);
  rows.push_back({"prove", n, m, prove});
  rows.push_back({"verify", n, m, verify});
}

// The whole protocol of m parties (n = 64) in one process through protobuf frames: every
// party's work and the dealer's, as one row with the bytes each party sends and receives.
void add_aggregate_row(std::vector<Row>& rows, const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t m,
                       const std::function<void()>& yardstick, int min_runs, double budget) {
  const mpc::SessionParams params{64, m, mpc::session_label("bench", 64, m, "bench")};
  const Witness w = random_witness(64, m);
  InProcessRun last;
  const Timing t = measure(
      [&] {
        last = aggregate_in_process(bp_gens, pc_gens, params, w.values, w.blindings);
        if (!last.ok) std::abort();
      },
      yardstick, min_runs, budget, 100);
  rows.push_back({"aggregate", 64, m, t, last.bytes_up_per_party, last.bytes_down_per_party});
}

// The plots' data (tools/plots): prove and verify of n = 64 against m on every backend this
// CPU supports (samples interleaved), and batch verification of single proofs against the
// batch size, per proof, on one thread and the active backend.
std::vector<Row> sweep_rows(bool quick, const std::function<void()>& yardstick) {
  const std::vector<size_t> ms = quick ? std::vector<size_t>{1, 2} : std::vector<size_t>{1, 2, 4, 8, 16, 32, 64};
  const std::vector<size_t> batches =
      quick ? std::vector<size_t>{1, 4} : std::vector<size_t>{1, 2, 4, 8, 16, 32, 64, 128, 256};
  const double budget = quick ? 0.1 : 1.0;
  const int min_runs = quick ? 2 : 5;
  const BulletproofGens bp_gens(64, ms.back());
  const PedersenGens pc_gens;
  const std::vector<Backend> backends = supported_backends();
  std::vector<Row> rows;
  for (size_t m : ms) {
    const Witness w = random_witness(64, m);
    std::vector<uint8_t> proof_bytes;
    std::vector<CompressedRistretto> commitments;
    const auto prove = [&] {
      Transcript t("bench");
      auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, t, w.values, w.blindings, 64);
      if (!proved) std::abort();
      proof_bytes = proved->proof.to_bytes();
      commitments = proved->commitments;
    };
    add_interleaved_rows(rows, {"prove", 64, m, {}}, backends,
                         measure_backends(backends, prove, yardstick, min_runs, budget, 100));
    const RangeProof proof = *RangeProof::from_bytes(proof_bytes);
    const auto verify = [&] {
      Transcript t("bench");
      if (!proof.verify_multiple(bp_gens, pc_gens, t, commitments, 64)) std::abort();
    };
    add_interleaved_rows(rows, {"verify", 64, m, {}}, backends,
                         measure_backends(backends, verify, yardstick, min_runs, budget, 300));
  }
  const ProofSet all = make_proofs(bp_gens, pc_gens, 64, 1, batches.back());
  for (size_t count : batches) {
    ProofSet set;
    set.proofs.assign(all.proofs.begin(), all.proofs.begin() + static_cast<long>(count));
    set.commitments.assign(all.commitments.begin(), all.commitments.begin() + static_cast<long>(count));
    Row row{"verify_batch", 64, 1,
            measure([&] { verify_proof_set(bp_gens, pc_gens, set, 1); }, yardstick, min_runs, budget, 200)};
    row.batch = count;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

// `bp bench --repeat OP --m M [--seconds S]`: one operation (n = 64; for batch, a batch
// verification of 64 proofs of m on one thread) again and again for S seconds, nothing
// else, for a profiler to sample (docs/performance.md's time shares are
// `perf record --call-graph dwarf` over this).
int run_repeat(const Args& args) {
  const std::string op = args.required("repeat");
  const size_t m = parse_u64(args.get("m", "1"), "--m");
  const double seconds = static_cast<double>(parse_u64(args.get("seconds", "10"), "--seconds"));
  if (m == 0 || m > mpc::kMaxPositions || (m & (m - 1)) != 0) throw UsageError("--m must be a power of two up to 256");
  if (op != "prove" && op != "verify" && op != "aggregate" && op != "batch")
    throw UsageError("--repeat takes prove, verify, aggregate or batch");
  const BulletproofGens bp_gens(64, m);
  const PedersenGens pc_gens;
  const Witness w = random_witness(64, m);
  const auto& values = w.values;
  const auto& blindings = w.blindings;
  Transcript first("bench");
  const auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, first, values, blindings, 64);
  if (!proved) std::abort();
  const mpc::SessionParams params{64, m, mpc::session_label("bench", 64, m, "bench")};
  const ProofSet set = op == "batch" ? make_proofs(bp_gens, pc_gens, 64, m, 64) : ProofSet{};
  size_t runs = 0;
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < seconds) {
    Transcript t("bench");
    if (op == "prove" && !RangeProof::prove_multiple(bp_gens, pc_gens, t, values, blindings, 64)) std::abort();
    if (op == "verify" && !proved->proof.verify_multiple(bp_gens, pc_gens, t, proved->commitments, 64)) std::abort();
    if (op == "aggregate" && !aggregate_in_process(bp_gens, pc_gens, params, values, blindings).ok) std::abort();
    if (op == "batch") verify_proof_set(bp_gens, pc_gens, set, 1);
    ++runs;
  }
  std::printf("%s n=64 m=%zu on %s: %zu runs in %.1f s\n", op.c_str(), m, backend_name(active_backend()), runs,
              seconds);
  return 0;
}

// The rows as JSON lines (a machine line first) or as tables; `primitives` may be empty
// (bp bench --sweep).
int print_rows(const std::vector<Row>& rows, const Primitives& primitives, bool json) {
  // Is the preferred backend the fastest wherever the backends were compared in turn?
  const std::string preferred = backend_name(preferred_backend());
  std::vector<std::string> slower;
  for (const auto& r : rows) {
    if (!r.interleaved || !r.fastest || r.backend == preferred) continue;
    slower.push_back(r.op + " m=" + std::to_string(r.m) + " (" + r.backend + " is faster)");
  }
  std::string verdict = slower.empty() ? "the preferred backend is the fastest on every interleaved row"
                                       : "the preferred backend is not the fastest on: ";
  for (size_t k = 0; k < slower.size(); ++k) verdict += (k ? ", " : "") + slower[k];

  if (json) {
    std::printf("%s\n", JsonObject()
                            .text("op", "machine")
                            .text("cpu", tools::cpu_model_name())
                            .text("backend_choice", backend_choice())
                            .text("preferred", preferred)
                            .text("active", backend_name(active_backend()))
                            .boolean("preferred_is_fastest", slower.empty())
                            .number("clock_ghz", primitives.clock_ghz, 3)
                            .str()
                            .c_str());
    for (const auto& p : primitives.rows) {
      JsonObject line;
      line.text("op", "primitive").text("name", p.op).text("note", p.note);
      if (p.size) line.number("points", p.size);
      line.number("median_us", p.ns / 1000, 4).number("ns", p.ns, 1).number("yardsticks", p.ns / p.yardstick_ns, 5);
      line.number("cycles", p.cycles, 1);
      std::printf("%s\n", line.str().c_str());
    }
    for (const auto& r : rows) {
      JsonObject line;
      line.text("op", r.op).number("n", r.n).number("m", r.m).text("backend", r.backend);
      line.number("median_us", r.t.us, 1).number("yardsticks", r.t.us / r.t.yardstick_us, 2);
      if (r.op == "aggregate")
        line.number("bytes_up_per_party", r.bytes_up).number("bytes_down_per_party", r.bytes_down);
      if (r.interleaved) line.boolean("interleaved", true).boolean("fastest", r.fastest);
      if (r.batch)
        line.number("batch", r.batch)
            .number("threads", r.threads)
            .number("yardsticks_per_proof", r.t.us / r.t.yardstick_us / static_cast<double>(r.batch), 6);
      std::printf("%s\n", line.str().c_str());
    }
    return 0;
  }
  std::printf("%s%s\n\n", tools::machine_lines().c_str(), verdict.c_str());
  std::printf(
      "| op | n | m | backend | proof bytes | median µs | yardsticks | notes |\n"
      "|---|---:|---:|---|---:|---:|---:|---:|\n");
  for (const auto& r : rows) {
    if (r.op == "yardstick") {
      std::printf("| yardstick (libsodium scalarmult) | | | | | %.1f | 1 | |\n", r.t.us);
      continue;
    }
    std::string bytes;
    if (r.op == "aggregate")
      bytes = "bytes up / down per party " + std::to_string(r.bytes_up) + " / " + std::to_string(r.bytes_down);
    if (r.batch) {
      char per_proof[128];
      std::snprintf(per_proof, sizeof per_proof, "%zu proofs, %u thread%s: %.2f yardsticks per proof", r.batch,
                    r.threads, r.threads == 1 ? "" : "s", r.t.us / r.t.yardstick_us / static_cast<double>(r.batch));
      bytes = per_proof;
    }
    if (r.interleaved)
      bytes += std::string(bytes.empty() ? "" : "; ") + "backends interleaved" + (r.fastest ? ", fastest" : "");
    std::printf("| %s | %zu | %zu | %s | %zu | %.1f | %.1f | %s |\n", r.op.c_str(), r.n, r.m, r.backend.c_str(),
                RangeProof::serialized_size(r.n, r.m), r.t.us, r.t.us / r.t.yardstick_us, bytes.c_str());
  }
  if (primitives.rows.empty()) return 0;  // --sweep and --positions measure none
  std::printf(
      "\ncore clock %.2f GHz (%.2f before the primitives, %.2f after), from a chain of dependent "
      "additions; cycles = ns x clock\n",
      primitives.clock_ghz, primitives.clock_start_ghz, primitives.clock_end_ghz);
  std::printf(
      "\n| primitive | points | ns | cycles | yardsticks | notes |\n"
      "|---|---:|---:|---:|---:|---|\n");
  for (const auto& p : primitives.rows)
    std::printf("| %s | %s | %.1f | %.0f | %.4f | %s |\n", p.op.c_str(), p.size ? std::to_string(p.size).c_str() : "",
                p.ns, p.cycles, p.ns / p.yardstick_ns, p.note.c_str());
  return 0;
}

namespace {

// `bp bench --positions`: prove, verify and the whole protocol in process for m = 64, 128
// and 256 (n = 64, the active backend): the sizing of large sessions in docs/operations.md.
std::vector<Row> position_rows(bool quick, const std::function<void()>& yardstick) {
  const std::vector<size_t> ms = quick ? std::vector<size_t>{64} : std::vector<size_t>{64, 128, 256};
  const double budget = quick ? 0.2 : 1.5;
  const int min_runs = quick ? 2 : 5;
  const BulletproofGens bp_gens(64, ms.back());
  const PedersenGens pc_gens;
  std::vector<Row> rows;
  for (size_t m : ms) {
    add_prove_verify_rows(rows, bp_gens, pc_gens, 64, m, yardstick, min_runs, budget);
    add_aggregate_row(rows, bp_gens, pc_gens, m, yardstick, min_runs, budget);
  }
  return rows;
}

}  // namespace

int run_bench(int argc, char** argv) {
  const Args args(argc, argv, 2, {"repeat", "m", "seconds"},
                  {"json", "quick", "sweep", "positions", "r1cs", "threads", "party", "limit"});
  if (args.has("repeat")) return run_repeat(args);
  if (args.has("party")) return print_party_rows(args.has("json"));
  const bool json = args.has("json");
  const bool quick = args.has("quick");
  const double budget = quick ? 0.2 : 1.5;
  const int min_runs = quick ? 2 : 7;

  uint8_t scalar[32], point[32], out[32];
  crypto_core_ristretto255_scalar_random(scalar);
  crypto_core_ristretto255_random(point);
  const auto yardstick = [&] {
    if (crypto_scalarmult_ristretto255(out, scalar, point) != 0) std::abort();
  };
  const Timing yardstick_alone = measure(yardstick, yardstick, 200, budget, 20000);
  if (args.has("sweep")) return print_rows(sweep_rows(quick, yardstick), {}, json);
  if (args.has("positions")) return print_rows(position_rows(quick, yardstick), {}, json);
  if (args.has("r1cs")) return print_r1cs_rows(quick, json, yardstick);
  if (args.has("threads")) return print_thread_rows(quick, json, yardstick);
  if (args.has("limit")) return print_limit_rows(quick, yardstick);

  std::vector<std::pair<size_t, size_t>> sizes = {{8, 1},  {16, 1}, {32, 1}, {64, 1},
                                                  {64, 2}, {64, 4}, {64, 8}, {64, 16}};
  if (!quick) {
    sizes.push_back({64, 32});
    sizes.push_back({64, 64});
  }
  const BulletproofGens bp_gens(64, quick ? 16 : 64);
  const PedersenGens pc_gens;
  std::vector<Row> rows;
  rows.push_back({"yardstick", 0, 0, yardstick_alone});
  for (const auto& size : sizes)
    add_prove_verify_rows(rows, bp_gens, pc_gens, size.first, size.second, yardstick, min_runs, budget);

  // Every backend this CPU supports on the same operations, interleaved: the preferred one
  // must be the fastest on each (the rows above use the active one).
  const std::vector<Backend> backends = supported_backends();
  for (size_t m : {1, 16}) {
    const Witness w = random_witness(64, m);
    const auto& values = w.values;
    const auto& blindings = w.blindings;
    std::vector<uint8_t> proof_bytes;
    std::vector<CompressedRistretto> commitments;
    const auto prove = [&] {
      Transcript t("bench");
      auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, t, values, blindings, 64);
      if (!proved) std::abort();
      proof_bytes = proved->proof.to_bytes();
      commitments = proved->commitments;
    };
    add_interleaved_rows(rows, {"prove", 64, m, {}}, backends,
                         measure_backends(backends, prove, yardstick, min_runs, budget, 200));
    const RangeProof proof = *RangeProof::from_bytes(proof_bytes);
    const auto verify = [&] {
      Transcript t("bench");
      if (!proof.verify_multiple(bp_gens, pc_gens, t, commitments, 64)) std::abort();
    };
    add_interleaved_rows(rows, {"verify", 64, m, {}}, backends,
                         measure_backends(backends, verify, yardstick, min_runs, budget, 500));
  }

  // The whole protocol in one process through protobuf frames.
  std::vector<size_t> parties = {2, 4, 8, 16};
  if (!quick) {
    parties.push_back(32);
    parties.push_back(64);
  }
  for (size_t m : parties) add_aggregate_row(rows, bp_gens, pc_gens, m, yardstick, min_runs, budget);

  // Batch verification: 64 single proofs, and 16 proofs of m = 16, on one thread and on all cores.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& batch_size : std::vector<std::pair<size_t, size_t>>{{1, 64}, {16, 16}}) {
    // (Not a structured binding: clang 14 cannot capture those in the lambda below.)
    const size_t m = batch_size.first, count = batch_size.second;
    const ProofSet set = make_proofs(bp_gens, pc_gens, 64, m, count);
    for (unsigned threads : {1u, cores}) {
      if (threads == cores && cores == 1 && rows.back().op == "verify_batch" && rows.back().m == m) break;
      const auto batch = [&] { verify_proof_set(bp_gens, pc_gens, set, threads); };
      Row row{"verify_batch", 64, m, {}};
      row.batch = count;
      row.threads = threads;
      if (m == 1 && threads == 1) {  // the dealer's /v1/verify path, on every backend
        add_interleaved_rows(rows, row, backends, measure_backends(backends, batch, yardstick, min_runs, budget, 100));
        continue;
      }
      row.t = measure(batch, yardstick, min_runs, budget, 100);
      rows.push_back(row);
    }
  }

  // The dealer's final checks of sessions that end together (server/src/session/
  // proof_checker.hpp): m = 4 proofs checked in one batch, per proof against the verify
  // row of m = 4 above, one thread.
  {
    const ProofSet set = make_proofs(bp_gens, pc_gens, 64, 4, 8);
    for (size_t count : {2, 4, 8}) {
      const ProofSet part{{set.proofs.begin(), set.proofs.begin() + static_cast<std::ptrdiff_t>(count)},
                          {set.commitments.begin(), set.commitments.begin() + static_cast<std::ptrdiff_t>(count)}};
      Row row{"final_check_batch", 64, 4, {}};
      row.batch = count;
      row.threads = 1;
      row.t = measure([&] { verify_proof_set(bp_gens, pc_gens, part, 1); }, yardstick, min_runs, budget, 100);
      rows.push_back(row);
    }
  }

  const auto primitives = bench_primitives(yardstick, quick);

  return print_rows(rows, primitives, json);
}

}  // namespace bp::cli
