// bp bench --r1cs: constraint-system proofs of gadget lists, prove and verify on the active
// backend, each against the yardstick measured beside it. The statements are the reference's
// own where it has them (range:64, shuffle:8; the combined vector's shape, 58 multipliers),
// so `bp-oracle r1cs-vectors --seed 1 --timings` run in the same sitting gives the ratios.
#include <cstdio>

#include "../common/machine.hpp"
#include "bench_timing.hpp"
#include "bp/backend.hpp"
#include "bp/json.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/random.hpp"

namespace bp::cli {
namespace {

// Values that satisfy the list: a shuffle's outputs are its inputs reversed, a range's value
// is below 2^N, the rest are not used here.
std::vector<uint64_t> satisfying_values(const GadgetList& list) {
  std::vector<uint64_t> values;
  for (const auto& item : list.items()) {
    if (item.kind == GadgetItem::Kind::Shuffle) {
      for (uint64_t i = 0; i < item.parameter; ++i) values.push_back(1000 + 17 * i);
      for (uint64_t i = item.parameter; i-- > 0;) values.push_back(1000 + 17 * i);
    } else if (item.kind == GadgetItem::Kind::Range) {
      values.push_back(item.parameter == 64 ? 0x0123456789abcdefULL : (uint64_t{1} << item.parameter) - 1);
    }
  }
  return values;
}

}  // namespace

int print_r1cs_rows(bool quick, bool json, const std::function<void()>& yardstick) {
  const std::vector<std::string> statements = {"range:64", "shuffle:8", "shuffle:64",
                                               "shuffle:3;shuffle:4;range:32;range:16"};
  const double budget = quick ? 0.2 : 1.5;
  const int min_runs = quick ? 2 : 7;
  if (!json) {
    std::printf("%s\n", tools::machine_lines().c_str());
    std::printf(
        "| statement | multipliers | proof bytes | backend | prove ms | verify ms | prove yardsticks | verify "
        "yardsticks |\n|---|---:|---:|---|---:|---:|---:|---:|\n");
  }
  SystemRandom rng;
  for (const auto& text : statements) {
    const auto list = GadgetList::parse(text);
    if (!list) return 3;
    const auto values = satisfying_values(*list);
    std::vector<Scalar> blindings;
    for (size_t j = 0; j < values.size(); ++j) blindings.push_back(Scalar::random(rng));
    std::optional<GadgetListProof> last;
    const Timing prove = measure(
        [&] {
          auto proved = prove_gadget_list(*list, "bench", values, blindings);
          if (!proved) std::abort();
          last = std::move(*proved);
        },
        yardstick, min_runs, budget, 200);
    const Timing verify = measure(
        [&] {
          if (!verify_gadget_list(*list, "bench", last->commitments, last->proof)) std::abort();
        },
        yardstick, min_runs, budget, 500);
    const size_t bytes = last->proof.serialized_size();
    if (json) {
      std::printf("%s\n", JsonObject()
                              .text("op", "r1cs")
                              .text("gadgets", list->text())
                              .number("multipliers", list->multipliers())
                              .number("proof_bytes", bytes)
                              .text("backend", backend_name(active_backend()))
                              .number("prove_us", prove.us, 1)
                              .number("verify_us", verify.us, 1)
                              .number("prove_yardsticks", prove.us / prove.yardstick_us, 1)
                              .number("verify_yardsticks", verify.us / verify.yardstick_us, 1)
                              .str()
                              .c_str());
    } else {
      std::printf("| %s | %zu | %zu | %s | %.2f | %.2f | %.1f | %.1f |\n", list->text().c_str(), list->multipliers(),
                  bytes, backend_name(active_backend()), prove.us / 1000, verify.us / 1000,
                  prove.us / prove.yardstick_us, verify.us / verify.yardstick_us);
    }
  }
  // A batch of 16 range:64 proofs checked in one pass, per proof, against one check alone.
  const auto list = GadgetList::parse("range:64");
  constexpr size_t kBatch = 16;
  std::vector<GadgetListProof> proofs;
  for (size_t k = 0; k < kBatch; ++k) {
    const uint64_t value = 1000 + k;
    const Scalar blinding = Scalar::random(rng);
    auto proved = prove_gadget_list(*list, "bench", {&value, 1}, {&blinding, 1});
    if (!proved) std::abort();
    proofs.push_back(std::move(*proved));
  }
  static const PedersenGens pc_gens;
  static const BulletproofGens bp_gens(list->generators_capacity(), 1);
  const Timing batch = measure(
      [&] {
        std::vector<R1CSEquation> equations;
        for (const auto& p : proofs) {
          Transcript t("bench");
          R1CSVerifier verifier(t);
          const Variable v = verifier.commit(p.commitments[0]);
          if (!list->build(verifier, {&v, 1}, std::nullopt)) std::abort();
          auto eq = std::move(verifier).equation(p.proof, bp_gens);
          if (!eq) std::abort();
          equations.push_back(std::move(*eq));
        }
        if (!verify_r1cs_batch(equations, pc_gens, bp_gens).ok()) std::abort();
      },
      yardstick, min_runs, budget, 100);
  const double per_proof = batch.us / kBatch;
  if (json)
    std::printf("%s\n", JsonObject()
                            .text("op", "r1cs_batch")
                            .text("gadgets", "range:64")
                            .number("batch", kBatch)
                            .text("backend", backend_name(active_backend()))
                            .number("verify_us_per_proof", per_proof, 1)
                            .number("verify_yardsticks_per_proof", per_proof / batch.yardstick_us, 2)
                            .str()
                            .c_str());
  else
    std::printf("| range:64, a batch of %zu (per proof) | 64 | 801 | %s | | %.2f | | %.1f |\n", kBatch,
                backend_name(active_backend()), per_proof / 1000, per_proof / batch.yardstick_us);
  return 0;
}

}  // namespace bp::cli
