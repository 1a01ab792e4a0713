// bp bench --limit: how far each proof operation is from what its group operations alone
// cost. Per backend this CPU runs: the measured cost of a field multiplication (a
// four-lane backend's per lane), a point addition, a doubling, a decompression and a
// compression; per operation, how many of each it performs (bp/detail/op_tally.hpp:
// the multiscalar multiplications' own digit plans, counted on this run's inputs), the
// time that count takes at those costs (the ideal), the measured time, and their ratio.
// A ratio over 1.5 says where the rest goes: inside the multiscalar multiplications (how
// their measured time compares with their share of the ideal) or outside them (scalar
// arithmetic, transcripts, encoding, memory).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../common/in_process.hpp"
#include "../common/machine.hpp"
#include "bench_primitives.hpp"
#include "bench_proofs.hpp"
#include "bench_timing.hpp"
#include "bp/backend.hpp"
#include "bp/detail/backend_loops.hpp"
#include "bp/detail/edwards.hpp"
#include "bp/detail/op_tally.hpp"
#include "bp/precomputed.hpp"
#include "bp/random.hpp"
#include "bp/transcript.hpp"

namespace bp::cli {
namespace {

struct OpCosts {
  double field_mul = 0, add = 0, dbl = 0, decompress = 0, compress = 0;  // ns each
  double add_throughput = 0;  // ns per addition with four independent chains in flight
  double add_in_pairs = 0;    // ns per addition, two in one pair operation; 0 where the kernels do not
  double mixed_add = 0;       // extended + affine, the portable loops' form; 0 where not measured
};

// The portable backend's other addition form: its table and bucket loops add affine points
// (Z = 1), one multiplication cheaper than the cached form the loops measure.
double portable_mixed_add_ns(size_t reps, const std::function<void()>& yardstick) {
  const RistrettoPoint q = RistrettoPoint::basepoint() * Scalar::from_u64(3);
  const auto table = VartimeBaseTable::build(std::span<const RistrettoPoint>(&q, 1));
  const detail::AffineCached& affine = table[0].odd_multiple(0);
  detail::EdwardsPoint p = RistrettoPoint::basepoint().edwards();
  return time_op(
             "", reps,
             [&] {
               p = detail::to_extended(detail::add(p, affine));
               keep(p);
             },
             yardstick, 7)
      .ns;
}

// The active backend's costs, each along one dependent chain (latency); the addition also
// with four chains side by side (throughput): the ideal uses the latency, and where the two
// agree, no reordering of a multiscalar multiplication's additions would make them cheaper. A four-lane
// backend's field loop does four multiplications an iteration (one a lane); its point
// loops do one operation, the lanes holding the point's coordinates.
OpCosts measure_costs(const detail::BackendLoops& loops, bool quick, const std::function<void()>& yardstick) {
  const size_t reps = quick ? 2000 : 20000;
  const double lanes = loops.field_ops_per_iteration;
  // ns per iteration of a loop of `reps`
  const auto per_rep = [&](void (*loop)(size_t)) {
    return time_op(
               "", 1, [&] { loop(reps); }, yardstick, 7)
               .ns /
           static_cast<double>(reps);
  };
  OpCosts c;
  c.field_mul = per_rep(loops.field_mul) / lanes;
  c.add = per_rep(loops.point_add);
  c.add_throughput = per_rep(loops.point_add_independent) / 4;
  if (loops.point_add_pairs != nullptr) c.add_in_pairs = per_rep(loops.point_add_pairs) / 2;
  c.dbl = per_rep(loops.point_dbl);
  if (active_backend() == Backend::portable) c.mixed_add = portable_mixed_add_ns(reps, yardstick);
  SystemRandom rng;
  std::vector<CompressedRistretto> encoded;
  std::vector<RistrettoPoint> points;
  for (int i = 0; i < 64; ++i) {
    points.push_back(RistrettoPoint::basepoint() * Scalar::random(rng));
    encoded.push_back(points.back().compress());
  }
  std::vector<std::optional<RistrettoPoint>> decoded(encoded.size());
  // Batched, as the verifiers decode a proof's points.
  c.decompress = time_op(
                     "", quick ? 5 : 50, [&] { RistrettoPoint::decompress_batch(encoded, decoded); }, yardstick, 7)
                     .ns /
                 static_cast<double>(encoded.size());
  size_t k = 0;
  c.compress = time_op(
                   "", quick ? 200 : 2000,
                   [&] {
                     encoded[k % 64] = points[k % 64].compress();
                     ++k;
                   },
                   yardstick, 7)
                   .ns;
  return c;
}

struct LimitRow {
  std::string op;
  std::string backend;
  detail::OpTally ops;
  double measured_us = 0;
  double ideal_us = 0;
  double msm_ideal_us = 0;
  size_t per = 1;  // the row is per proof of a batch of `per`
};

// Where the kernels add in pairs, an addition costs half a pair addition; the doublings
// stay at one point's cost (Straus doubles its two accumulators in one pair doubling).
double ideal_us(const detail::OpTally& t, const OpCosts& c, bool msm_only) {
  const double add = c.add_in_pairs > 0 ? c.add_in_pairs : c.add;
  double ns = static_cast<double>(t.additions) * add + static_cast<double>(t.doublings) * c.dbl;
  if (!msm_only)
    ns += static_cast<double>(t.decompressions) * c.decompress + static_cast<double>(t.compressions) * c.compress;
  return ns / 1000.0;
}

// Times `fn` (without counting), then runs it once more with a tally installed.
LimitRow limit_row(std::string op, const std::function<void()>& fn, const std::function<void()>& yardstick,
                   const OpCosts& costs, bool quick, size_t per = 1) {
  LimitRow row{std::move(op), backend_name(active_backend()), {}, 0, 0, 0, per};
  row.measured_us = measure(fn, yardstick, quick ? 2 : 5, quick ? 0.2 : 1.0, 200).us;
  detail::OpTally* before = detail::install_op_tally(&row.ops);
  fn();
  detail::install_op_tally(before);
  row.ideal_us = ideal_us(row.ops, costs, false);
  row.msm_ideal_us = ideal_us(row.ops, costs, true);
  return row;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Where the time beyond the ideal goes, for a row whose ratio is over 1.5.
std::string where_the_rest_goes(const LimitRow& r) {
  const double ratio = r.measured_us / r.ideal_us;
  if (ratio <= 1.5) return "";
  const double per = static_cast<double>(r.per);
  const double msm_us = r.ops.msm_seconds * 1e6;
  const double outside_us = std::max(0.0, r.measured_us - msm_us);
  return "multiscalar " + fmt("%.0f", msm_us / per) + " µs (" + fmt("%.2f", msm_us / r.msm_ideal_us) + "x its ideal, " +
         std::to_string(r.ops.msm_calls) + " calls); outside them " + fmt("%.0f", outside_us / per) + " µs (" +
         fmt("%.0f", 100.0 * outside_us / r.measured_us) + "%: scalars, transcript, encoding, memory)";
}

}  // namespace

int print_limit_rows(bool quick, const std::function<void()>& yardstick) {
  const BulletproofGens bp_gens(64, 16);
  const PedersenGens pc_gens;
  std::printf("%s\n\n", tools::machine_lines().c_str());
  const Backend active = active_backend();
  std::vector<std::pair<std::string, OpCosts>> costs;
  std::vector<LimitRow> rows;

  std::vector<std::pair<size_t, std::vector<uint8_t>>> proofs;  // m, proof bytes
  std::vector<std::vector<CompressedRistretto>> commitments;
  for (size_t m : {1, 16}) {
    const Witness w = random_witness(64, m);
    Transcript t("bench");
    auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, t, w.values, w.blindings, 64);
    if (!proved) return 1;
    proofs.push_back({m, proved->proof.to_bytes()});
    commitments.push_back(proved->commitments);
  }
  const ProofSet batch = make_proofs(bp_gens, pc_gens, 64, 1, 64);
  const Witness session = random_witness(64, 4);
  const mpc::SessionParams params{64, 4, mpc::session_label("bench", 64, 4, "bench")};

  for (Backend backend : supported_backends()) {
    const detail::BackendLoops* loops = detail::backend_loops(backend);
    if (loops == nullptr) continue;
    set_backend(backend);
    const OpCosts c = measure_costs(*loops, quick, yardstick);
    costs.push_back({backend_name(backend), c});
    for (size_t k = 0; k < proofs.size(); ++k) {
      const size_t m = proofs[k].first;
      const Witness w = random_witness(64, m);
      rows.push_back(limit_row(
          "prove m = " + std::to_string(m),
          [&] {
            Transcript t("bench");
            if (!RangeProof::prove_multiple(bp_gens, pc_gens, t, w.values, w.blindings, 64)) std::abort();
          },
          yardstick, c, quick));
    }
    for (size_t k = 0; k < proofs.size(); ++k) {
      const RangeProof proof = *RangeProof::from_bytes(proofs[k].second);
      rows.push_back(limit_row(
          "verify m = " + std::to_string(proofs[k].first),
          [&] {
            Transcript t("bench");
            if (!proof.verify_multiple(bp_gens, pc_gens, t, commitments[k], 64)) std::abort();
          },
          yardstick, c, quick));
    }
    LimitRow b = limit_row(
        "batch of 64, m = 1, per proof", [&] { verify_proof_set(bp_gens, pc_gens, batch, 1); }, yardstick, c, quick,
        64);
    rows.push_back(b);
    // The dealer's steps of an m = 4 session (its final check included), timed alone.
    DealerMeter meter;
    std::vector<double> dealer_us;
    for (int s = 0; s < (quick ? 3 : 9); ++s) {
      meter.seconds = 0;
      if (!aggregate_in_process(bp_gens, pc_gens, params, session.values, session.blindings, &meter).ok) return 1;
      dealer_us.push_back(meter.seconds * 1e6);
    }
    std::sort(dealer_us.begin(), dealer_us.end());
    LimitRow d{"dealer of an m = 4 session", backend_name(backend), {}, dealer_us[dealer_us.size() / 2], 0, 0, 1};
    meter.tally = &d.ops;
    if (!aggregate_in_process(bp_gens, pc_gens, params, session.values, session.blindings, &meter).ok) return 1;
    d.ideal_us = ideal_us(d.ops, c, false);
    d.msm_ideal_us = ideal_us(d.ops, c, true);
    rows.push_back(d);
  }
  set_backend(active);

  std::printf(
      "| backend | field multiplication ns | point addition ns | (four chains) ns | (in pairs) ns | "
      "(extended + affine) ns | doubling ns | decompression ns | compression ns |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& [name, c] : costs)
    std::printf("| %s | %.1f | %.1f | %.1f | %s | %s | %.1f | %.0f | %.0f |\n", name.c_str(), c.field_mul, c.add,
                c.add_throughput, c.add_in_pairs > 0 ? fmt("%.1f", c.add_in_pairs).c_str() : "",
                c.mixed_add > 0 ? fmt("%.1f", c.mixed_add).c_str() : "", c.dbl, c.decompress, c.compress);
  std::printf(
      "\n| operation | backend | additions | doublings | decompressions | compressions | ideal µs | "
      "measured µs | ratio | where the rest goes |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const auto& r : rows) {
    const double per = static_cast<double>(r.per);
    std::printf("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2fx | %s |\n", r.op.c_str(), r.backend.c_str(),
                static_cast<double>(r.ops.additions) / per, static_cast<double>(r.ops.doublings) / per,
                static_cast<double>(r.ops.decompressions) / per, static_cast<double>(r.ops.compressions) / per,
                r.ideal_us / per, r.measured_us / per, r.measured_us / r.ideal_us, where_the_rest_goes(r).c_str());
  }
  return 0;
}

}  // namespace bp::cli
