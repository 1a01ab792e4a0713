#include <vector>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "proof/generator_sum.hpp"

namespace bp::detail {

namespace {

// The nonzero generator terms, party by party, with what stands for each generator: its
// table (NAF or shifted), or the point itself.
template <class Entry, class Gather>
void collect_generator_terms(size_t n, size_t m, std::span<const Scalar> G, std::span<const Scalar> H,
                             Gather entries_of_party, std::vector<Scalar>& scalars, std::vector<Entry>& entries) {
  scalars.reserve(scalars.size() + 2 * n * m);
  entries.reserve(entries.size() + 2 * n * m);
  for (size_t j = 0; j < m; ++j) {
    const auto [g, h] = entries_of_party(j);
    for (size_t i = 0; i < n; ++i) {
      if (G[j * n + i].is_zero() && H[j * n + i].is_zero()) continue;
      scalars.push_back(G[j * n + i]);
      entries.push_back(g[i]);
      scalars.push_back(H[j * n + i]);
      entries.push_back(h[i]);
    }
  }
}

}  // namespace

bool generator_sum_is_identity(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n, size_t m,
                               const Scalar& B_blinding, const Scalar& B, std::span<const Scalar> G,
                               std::span<const Scalar> H, std::vector<Scalar> scalars,
                               std::vector<RistrettoPoint> points) {
  std::vector<Scalar> fixed_scalars;
  if (!bp_gens.tables_pay_for(n, m)) {
    collect_generator_terms(
        n, m, G, H, [&](size_t j) { return std::pair(bp_gens.G(j, n), bp_gens.H(j, n)); }, scalars, points);
    scalars.push_back(B_blinding);
    points.push_back(pc_gens.B_blinding);
    scalars.push_back(B);
    points.push_back(pc_gens.B);
    return multiscalar_mul_vartime(scalars, points).is_identity();
  }
  if (shifted_tables_pay(2 * n * m)) {
    // B and B̃ have no shifted tables (two points): they join the others.
    scalars.push_back(B_blinding);
    points.push_back(pc_gens.B_blinding);
    scalars.push_back(B);
    points.push_back(pc_gens.B);
    std::vector<const ShiftedBaseTable*> tables;
    collect_generator_terms(
        n, m, G, H, [&](size_t j) { return std::pair(bp_gens.G_shifted_tables(j, n), bp_gens.H_shifted_tables(j, n)); },
        fixed_scalars, tables);
    return multiscalar_mul_vartime(fixed_scalars, tables, scalars, points).is_identity();
  }
  fixed_scalars = {B_blinding, B};
  std::vector<const VartimeBaseTable*> tables{&pc_gens.B_blinding_table(), &pc_gens.B_table()};
  collect_generator_terms(
      n, m, G, H, [&](size_t j) { return std::pair(bp_gens.G_tables(j, n), bp_gens.H_tables(j, n)); }, fixed_scalars,
      tables);
  return multiscalar_mul_vartime(fixed_scalars, tables, scalars, points).is_identity();
}

}  // namespace bp::detail
