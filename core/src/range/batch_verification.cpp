#include "bp/batch_verification.hpp"

#include <algorithm>
#include <optional>

#include "bp/precomputed.hpp"
#include "bp/random.hpp"
#include "proof/parallel_parts.hpp"
#include "range/verification_equation.hpp"

namespace bp {
namespace {

using detail::VerificationEquation;

// Sum over the chosen equations == identity? Each equation was built already multiplied by
// its proof's random weight (drawn from libsodium after the proof was fixed), so a bad proof
// makes any subset that contains it fail except with probability about 1/l, whichever
// subsets the bisection below tries with the same weights. The generators' scalars are
// added per generator first, so each fixed generator appears once however many proofs use
// it (generators no chosen proof reaches are left out); the proofs' own points are all kept.
bool combined_holds(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                    const std::vector<VerificationEquation>& eqs, std::span<const size_t> chosen) {
  size_t max_n = 0, max_m = 0, dynamic = 0;
  for (size_t k : chosen) {
    max_n = std::max(max_n, eqs[k].n);
    max_m = std::max(max_m, eqs[k].m);
    dynamic += eqs[k].points.size();
  }
  Scalar B, B_blinding;
  std::vector<Scalar> G(max_m * max_n), H(max_m * max_n);  // party j's generator i at j·max_n + i
  std::vector<Scalar> scalars;
  std::vector<RistrettoPoint> points;
  scalars.reserve(dynamic);
  points.reserve(dynamic);
  for (size_t k : chosen) {
    const auto& eq = eqs[k];
    B += eq.B;
    B_blinding += eq.B_blinding;
    for (size_t j = 0; j < eq.m; ++j)
      for (size_t i = 0; i < eq.n; ++i) {
        G[j * max_n + i] += eq.G[j * eq.n + i];
        H[j * max_n + i] += eq.H[j * eq.n + i];
      }
    scalars.insert(scalars.end(), eq.scalars.begin(), eq.scalars.end());
    points.insert(points.end(), eq.points.begin(), eq.points.end());
  }
  return detail::generator_sum_is_identity(bp_gens, pc_gens, max_n, max_m, B_blinding, B, G, H, std::move(scalars),
                                           std::move(points));
}

// Appends to `failed` the chosen equations that fail, halving the set until each failing
// proof stands alone.
void find_failures(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                   const std::vector<VerificationEquation>& eqs, std::span<const size_t> chosen,
                   std::vector<size_t>& failed) {
  if (chosen.empty() || combined_holds(bp_gens, pc_gens, eqs, chosen)) return;
  if (chosen.size() == 1) {
    failed.push_back(chosen[0]);
    return;
  }
  const size_t half = chosen.size() / 2;
  find_failures(bp_gens, pc_gens, eqs, chosen.first(half), failed);
  find_failures(bp_gens, pc_gens, eqs, chosen.subspan(half), failed);
}

}  // namespace

BatchOutcome verify_batch(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, std::span<const BatchItem> items,
                          unsigned threads) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(items.size())));
  std::vector<VerificationEquation> eqs(items.size());
  std::vector<std::vector<size_t>> failed_by_part(threads);
  // Each part builds its proofs' equations (transcript, decoding: half the work) and then
  // checks them; a proof that cannot even produce an equation fails on its own.
  auto verify_part = [&](unsigned t) {
    const size_t begin = items.size() * t / threads, end = items.size() * (t + 1) / threads;
    std::vector<size_t> usable;
    SystemRandom rng;
    // Every proof's points decoded in one call: the vector exponentiations then run with
    // all their lanes used, where one proof's 17 points (m = 1) would leave a lone one.
    std::vector<CompressedRistretto> encoded;
    std::vector<size_t> first_point(end - begin + 1);
    for (size_t k = begin; k < end; ++k) {
      first_point[k - begin] = encoded.size();
      if (items[k].proof) detail::append_equation_points(*items[k].proof, items[k].commitments, encoded);
    }
    first_point[end - begin] = encoded.size();
    std::vector<std::optional<RistrettoPoint>> decoded(encoded.size());
    RistrettoPoint::decompress_batch(encoded, decoded);
    // Every proof's challenges, then one inversion for all their u_k and y (an inversion
    // costs as much as about three hundred multiplications; Montgomery's trick, three).
    std::vector<std::optional<detail::EquationChallenges>> challenges(end - begin);
    std::vector<Scalar> inverses;
    std::vector<size_t> first_inverse(end - begin);
    for (size_t k = begin; k < end; ++k) {
      const auto& item = items[k];
      if (!item.proof || !item.transcript) continue;
      auto ch = detail::equation_challenges(*item.proof, bp_gens, *item.transcript, item.commitments, item.n);
      if (!ch) continue;
      const size_t first = inverses.size();
      detail::append_values_to_invert(*ch, inverses);
      // A zero (a hash output, so never in practice) would spoil the shared inversion.
      if (std::any_of(inverses.begin() + static_cast<std::ptrdiff_t>(first), inverses.end(),
                      [](const Scalar& v) { return v.is_zero(); })) {
        inverses.resize(first);
        continue;
      }
      first_inverse[k - begin] = first;
      challenges[k - begin] = std::move(*ch);
    }
    Scalar::batch_invert_vartime(inverses);
    for (size_t k = begin; k < end; ++k) {
      const auto& item = items[k];
      const auto& ch = challenges[k - begin];
      if (!ch) {
        failed_by_part[t].push_back(k);
        continue;
      }
      const auto points = std::span<const std::optional<RistrettoPoint>>(decoded).subspan(
          first_point[k - begin], first_point[k - begin + 1] - first_point[k - begin]);
      const auto own_inverses = std::span<const Scalar>(inverses).subspan(first_inverse[k - begin], ch->u.size() + 1);
      const Scalar weight = Scalar::random(rng);
      auto eq = detail::equation_from_challenges(*item.proof, item.commitments, *ch, own_inverses, weight,
                                                 Scalar::random(rng), points);
      if (!eq) {
        failed_by_part[t].push_back(k);
        continue;
      }
      eqs[k] = std::move(*eq);
      usable.push_back(k);
    }
    find_failures(bp_gens, pc_gens, eqs, usable, failed_by_part[t]);
  };
  detail::run_parts(threads, verify_part);
  BatchOutcome out;
  for (const auto& part : failed_by_part) out.failed.insert(out.failed.end(), part.begin(), part.end());
  std::sort(out.failed.begin(), out.failed.end());
  return out;
}

}  // namespace bp
