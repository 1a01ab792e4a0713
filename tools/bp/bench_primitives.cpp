#include "bench_primitives.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "bp/backend.hpp"
#include "bp/detail/backend_loops.hpp"
#include "bp/detail/edwards.hpp"
#include "bp/detail/field.hpp"
#include "bp/generators.hpp"
#include "bp/keccak.hpp"
#include "bp/msm.hpp"
#include "bp/random.hpp"
#include "bp/transcript.hpp"

namespace bp::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Additions per nanosecond along one dependency chain: the core clock in GHz (median of
// the samples). Eight additions per loop iteration keep the loop's own branch and counter
// off the chain's path.
double core_clock_ghz(int samples) {
  constexpr uint64_t kIterations = 20'000'000, kAddsPerIteration = 8;
  std::vector<double> ghz;
  for (int s = 0; s < samples; ++s) {
    uint64_t x = 0;
    const double secs = seconds_of([&] {
      for (uint64_t i = 0; i < kIterations; ++i)
        asm volatile(
            "addq $1, %0\n\taddq $1, %0\n\taddq $1, %0\n\taddq $1, %0\n\t"
            "addq $1, %0\n\taddq $1, %0\n\taddq $1, %0\n\taddq $1, %0"
            : "+r"(x));
    });
    keep(x);
    ghz.push_back(static_cast<double>(kIterations * kAddsPerIteration) / (secs * 1e9));
  }
  std::sort(ghz.begin(), ghz.end());
  return ghz[ghz.size() / 2];
}

}  // namespace

// Median over samples of `fn` run `iterations` times, in ns per iteration, each sample
// followed by a yardstick sample.
PrimitiveRow time_op(std::string op, size_t iterations, const std::function<void()>& fn,
                     const std::function<void()>& yardstick, int samples) {
  std::vector<double> ns, sticks;
  for (int s = 0; s < samples; ++s) {
    ns.push_back(seconds_of([&] {
                   for (size_t i = 0; i < iterations; ++i) fn();
                 }) *
                 1e9 / static_cast<double>(iterations));
    sticks.push_back(seconds_of(yardstick) * 1e9);
  }
  std::sort(ns.begin(), ns.end());
  std::sort(sticks.begin(), sticks.end());
  return {std::move(op), 0, ns[ns.size() / 2], sticks[sticks.size() / 2], {}};
}

Primitives bench_primitives(const std::function<void()>& yardstick, bool quick) {
  using namespace detail;
  const int samples = quick ? 5 : 21;
  const double clock_before = core_clock_ghz(5);
  const size_t reps = quick ? 2000 : 20000;
  SystemRandom rng;
  std::vector<PrimitiveRow> rows;

  for (Backend backend : kBackends) {
    const BackendLoops* loops = backend_loops(backend);
    if (loops == nullptr) continue;
    const std::string name = backend_name(backend);
    const auto loop_row = [&](std::string op, void (*loop)(size_t), std::string note) {
      auto row = time_op(
          std::move(op), 1, [&] { loop(reps); }, yardstick, samples);
      row.ns /= static_cast<double>(reps);
      row.note = std::move(note);
      rows.push_back(row);
    };
    const std::string at_once =
        loops->field_ops_per_iteration == 4 ? ", four at once (one per lane)" : ", one at a time";
    loop_row("field multiplication", loops->field_mul, name + at_once);
    loop_row("field squaring", loops->field_sq, name + at_once);
    loop_row("point addition (extended + cached)", loops->point_add, name);
    loop_row("point doubling", loops->point_dbl, name);
  }

  const RistrettoPoint r = RistrettoPoint::basepoint() * Scalar::from_u64(0x9e3779b97f4a7c15);
  CompressedRistretto c = r.compress();
  rows.push_back(time_op(
      "ristretto encode", reps / 10,
      [&] {
        c = r.compress();
        keep(c);
      },
      yardstick, samples));
  rows.push_back(time_op(
      "ristretto decode", reps / 10,
      [&] {
        const auto d = RistrettoPoint::decompress(c);
        keep(d);
      },
      yardstick, samples));

  uint64_t state[25] = {1};
  rows.push_back(time_op(
      "Keccak-f[1600]", reps,
      [&] {
        keccak_f1600(state);
        keep(state[0]);
      },
      yardstick, samples));
  Transcript transcript("bench");
  uint8_t challenge[64];
  rows.push_back(time_op(
      "transcript challenge (64 bytes)", reps / 10,
      [&] {
        transcript.challenge_bytes("c", challenge);
        keep(challenge[0]);
      },
      yardstick, samples));

  // The multiscalar multiplications go through the public API, so they run on whichever
  // backend is active: once per backend this CPU supports.
  const Backend active = active_backend();
  std::vector<size_t> sizes = {64, 256, 1024};
  if (!quick) sizes.push_back(4096);
  for (Backend backend : kBackends) {
    if (!backend_supported(backend)) continue;
    set_backend(backend);
    for (size_t size : sizes) {
      std::vector<Scalar> scalars(size);
      std::vector<RistrettoPoint> points(size);
      for (size_t i = 0; i < size; ++i) {
        scalars[i] = Scalar::random(rng);
        points[i] = RistrettoPoint::basepoint() * Scalar::random(rng);
      }
      const auto per_point = [&](std::string op, const std::function<void()>& fn) {
        auto row = time_op(std::move(op), 1, fn, yardstick, samples);
        row.ns /= static_cast<double>(size);
        row.size = size;
        row.note = backend_name(backend);
        rows.push_back(row);
      };
      per_point("multiscalar, variable time, per point", [&] {
        const auto m = multiscalar_mul_vartime(scalars, points);
        keep(m);
      });
      if (size <= 1024)
        per_point("multiscalar, constant time, per point", [&] {
          const auto m = multiscalar_mul(scalars, points);
          keep(m);
        });
    }
  }
  set_backend(active);

  // The generator tables, each kind built party by party on first use: here every party's
  // variable-time and constant-time tables, then every party's shifted tables.
  const size_t parties = quick ? 16 : 64;
  double build_s = 0, shifted_s = 0;
  size_t table_bytes = 0, shifted_bytes = 0;
  {
    const BulletproofGens gens(64, parties);
    build_s = seconds_of([&] {
      const auto t = gens.G_tables_aggregated(1, parties);
      keep(t);
      for (size_t j = 0; j < parties; ++j) {
        const auto ct = gens.G_ct_tables(j, 1);
        keep(ct);
      }
    });
    table_bytes = gens.table_bytes();
    shifted_s = seconds_of([&] {
      const auto t = gens.G_shifted_tables_aggregated(1, parties);
      keep(t);
    });
    shifted_bytes = gens.table_bytes() - table_bytes;
  }
  const auto mib = [](size_t bytes) { return std::to_string((bytes + (1 << 19)) >> 20) + " MiB"; };
  PrimitiveRow tables{"generator tables, build", 0, build_s * 1e9, rows.front().yardstick_ns, {}};
  tables.note = "BulletproofGens(64, " + std::to_string(parties) + "): " + mib(table_bytes) + " of tables";
  rows.push_back(tables);
  PrimitiveRow shifted{
      "shifted generator tables, build (all parties)", 0, shifted_s * 1e9, rows.front().yardstick_ns, {}};
  shifted.note = "BulletproofGens(64, " + std::to_string(parties) + "): " + mib(shifted_bytes) + " more";
  rows.push_back(shifted);

  // The clock before and after, so a change of speed during the run shows.
  const double clock_after = core_clock_ghz(5);
  Primitives out{std::move(rows), (clock_before + clock_after) / 2, clock_before, clock_after};
  for (auto& row : out.rows) row.cycles = row.ns * out.clock_ghz;
  return out;
}

}  // namespace bp::cli
