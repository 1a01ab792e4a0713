// The dealer's side of a multiparty R1CS session (bp/r1cs_aggregation.hpp): the proof the
// parties' messages add up to, as the single prover's, its check, and the audit that names the
// parties whose shares do not fit their own commitments when it fails.
#include "bp/r1cs_aggregation.hpp"

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/transcript_protocol.hpp"
#include "r1cs/replay.hpp"

namespace bp {

using detail::r1cs_generators;
using detail::r1cs_pedersen;

namespace {

// One party's shares against its own commitments (the audit, when the whole proof fails):
// its l, r fit its A, S commitments, its t_x is <l, r>, and t_x with its blinding fit its
// T commitments and its own V's. Variable time: everything here is public.
bool shares_fit(const detail::Replay& r, size_t k, std::span<const size_t> mine, size_t first_commitment,
                const R1CSFirstPhaseShare& first, const R1CSSecondPhaseShare& second, const R1CSPolyShare& poly,
                const R1CSProofShare& share) {
  const PedersenGens& pc = r1cs_pedersen();
  const BulletproofGens& gens = r1cs_generators(r.list.generators_capacity());
  if (inner_product(share.l, share.r) != share.t_x) return false;
  const Scalar &x = r.x, &u = r.u;
  const Scalar x2 = x * x, x3 = x2 * x;
  // t_x·B + t̃_x·B̃ = x²(Σ w_V·V + (w_c + δ)·B) + x·T_1 + x³·T_3 + ... + x⁶·T_6, over item k.
  Scalar wc, delta;
  Scalar zq = r.z;
  for (size_t q = 0; q < r.system.list.constraints.size(); ++q, zq *= r.z) {
    if (r.system.constraint_owner[q] != k) continue;
    for (const auto& [var, c] : r.system.list.constraints[q].terms())
      if (var.kind == Variable::Kind::One) wc -= zq * c;
  }
  for (size_t i : mine) delta += r.exp_y_inv[i] * r.w.w_R[i] * r.w.w_L[i];
  std::vector<Scalar> scalars;
  std::vector<RistrettoPoint> points;
  const auto add = [&](const Scalar& s, const CompressedRistretto& c) {
    auto p = RistrettoPoint::decompress(c);
    if (!p) return false;
    scalars.push_back(s);
    points.push_back(*p);
    return true;
  };
  for (size_t j = 0; j < first.V.size(); ++j)
    if (!add(x2 * r.w.w_V[first_commitment + j], first.V[j])) return false;
  Scalar xi = x;
  const CompressedRistretto* T[] = {&poly.T_1, nullptr, &poly.T_3, &poly.T_4, &poly.T_5, &poly.T_6};
  for (const auto* t : T) {
    if (t && !add(xi, *t)) return false;
    xi *= x;
  }
  scalars.push_back(x2 * (wc + delta) - share.t_x);
  points.push_back(pc.B);
  scalars.push_back(-share.t_x_blinding);
  points.push_back(pc.B_blinding);
  if (multiscalar_mul_vartime(scalars, points) != RistrettoPoint::identity()) return false;

  // Σ g_i(l_i·G_i + r_i·y^-i·H_i) − Σ g_i(x·y^-i·w_R·G_i + (y^-i·w_O − 1 + x·y^-i·w_L)·H_i) + ẽ·B̃
  //   = x(A_I1 + u·A_I2) + x²(A_O1 + u·A_O2) + x³(S1 + u·S2), g_i = 1 or u (second phase).
  scalars.clear();
  points.clear();
  for (size_t n = 0; n < mine.size(); ++n) {
    const size_t i = mine[n];
    const Scalar g = i < r.n1 ? Scalar::one() : u;
    const Scalar& yi = r.exp_y_inv[i];
    scalars.push_back(g * (share.l[n] - x * yi * r.w.w_R[i]));
    points.push_back(gens.G(0, gens.gens_capacity())[i]);
    scalars.push_back(g * (share.r[n] * yi - (yi * r.w.w_O[i] - Scalar::one() + x * yi * r.w.w_L[i])));
    points.push_back(gens.H(0, gens.gens_capacity())[i]);
  }
  scalars.push_back(share.e_blinding);
  points.push_back(pc.B_blinding);
  const std::pair<Scalar, const CompressedRistretto*> sides[] = {{-x, &first.A_I1},       {-x2, &first.A_O1},
                                                                 {-x3, &first.S1},        {-x * u, &second.A_I2},
                                                                 {-x2 * u, &second.A_O2}, {-x3 * u, &second.S2}};
  for (const auto& [scalar, point] : sides)
    if (!add(scalar, *point)) return false;
  return multiscalar_mul_vartime(scalars, points) == RistrettoPoint::identity();
}

}  // namespace

namespace {

// Everything a dealer does with the shares before it verifies: its replay of the session up
// to the last challenge, each item's multipliers and first commitment, and (with `prove`)
// the proof the shares add up to, not yet verified.
struct Assembly {
  std::unique_ptr<detail::Replay> replay;
  R1CSAggregate out;
  std::vector<std::vector<size_t>> mine;
  std::vector<size_t> first_commitment;
};

Result<Assembly, R1CSBlame> assemble(const GadgetList& list, std::string_view label,
                                     std::span<const R1CSFirstPhaseShare> first,
                                     std::span<const R1CSSecondPhaseShare> second, std::span<const R1CSPolyShare> poly,
                                     std::span<const R1CSProofShare> shares, bool prove) {
  const size_t items = list.items().size();
  const auto refuse = [](R1CSErrorKind kind, std::string why, std::vector<size_t> blamed) {
    return R1CSBlame{R1CSError{kind, std::move(why)}, std::move(blamed)};
  };
  if (first.size() != items || second.size() != items || poly.size() != items || shares.size() != items)
    return refuse(R1CSErrorKind::FormatError, "one message per item in every round", {});
  Assembly a;
  a.replay = std::make_unique<detail::Replay>(list, label, std::nullopt);
  detail::Replay& r = *a.replay;
  if (auto built = r.build(std::nullopt); !built) return R1CSBlame{built.error(), {}};
  R1CSAggregate& out = a.out;
  std::vector<size_t> wrong_count;
  for (size_t k = 0; k < items; ++k) {
    if (first[k].V.size() != list.items()[k].commitments()) wrong_count.push_back(k);
    out.commitments.insert(out.commitments.end(), first[k].V.begin(), first[k].V.end());
  }
  if (!wrong_count.empty())
    return refuse(R1CSErrorKind::FormatError, "commitments that are not their item's count", wrong_count);
  // Every point of every party decodes, or that party is named.
  std::vector<size_t> malformed;
  for (size_t k = 0; k < items; ++k) {
    std::vector<CompressedRistretto> its = first[k].V;
    for (const auto* p : {&first[k].A_I1, &first[k].A_O1, &first[k].S1, &second[k].A_I2, &second[k].A_O2, &second[k].S2,
                          &poly[k].T_1, &poly[k].T_3, &poly[k].T_4, &poly[k].T_5, &poly[k].T_6})
      its.push_back(*p);
    if (!detail::sum_points(its)) malformed.push_back(k);
  }
  if (!malformed.empty()) return refuse(R1CSErrorKind::FormatError, "points that do not decode", malformed);

  R1CSProof& proof = out.proof;
  proof.A_I1 = *detail::sum_of(first, &R1CSFirstPhaseShare::A_I1);
  proof.A_O1 = *detail::sum_of(first, &R1CSFirstPhaseShare::A_O1);
  proof.S1 = *detail::sum_of(first, &R1CSFirstPhaseShare::S1);
  if (auto done = r.second_phase(out.commitments, proof.A_I1, proof.A_O1, proof.S1); !done)
    return R1CSBlame{done.error(), {}};
  proof.A_I2 = *detail::sum_of(second, &R1CSSecondPhaseShare::A_I2);
  proof.A_O2 = *detail::sum_of(second, &R1CSSecondPhaseShare::A_O2);
  proof.S2 = *detail::sum_of(second, &R1CSSecondPhaseShare::S2);
  if (auto done = r.challenges_yz(proof.A_I2, proof.A_O2, proof.S2); !done) return R1CSBlame{done.error(), {}};
  proof.T_1 = *detail::sum_of(poly, &R1CSPolyShare::T_1);
  proof.T_3 = *detail::sum_of(poly, &R1CSPolyShare::T_3);
  proof.T_4 = *detail::sum_of(poly, &R1CSPolyShare::T_4);
  proof.T_5 = *detail::sum_of(poly, &R1CSPolyShare::T_5);
  proof.T_6 = *detail::sum_of(poly, &R1CSPolyShare::T_6);
  r.challenges_ux({proof.T_1, proof.T_3, proof.T_4, proof.T_5, proof.T_6});

  // The parties' slices in place, the padding as the single prover pads.
  std::vector<Scalar> l_vec(r.padded_n), r_vec(r.padded_n);
  std::vector<std::vector<size_t>>& mine = a.mine;
  std::vector<size_t>& first_commitment = a.first_commitment;
  mine.resize(items);
  first_commitment.assign(items, 0);
  std::vector<size_t> short_shares;
  for (size_t k = 0; k < items; ++k) {
    mine[k] = r.multipliers_of(k);
    if (k > 0) first_commitment[k] = first_commitment[k - 1] + list.items()[k - 1].commitments();
    if (shares[k].l.size() != mine[k].size() || shares[k].r.size() != mine[k].size()) short_shares.push_back(k);
  }
  if (!short_shares.empty())
    return refuse(R1CSErrorKind::FormatError, "shares that are not one per the item's multipliers", short_shares);
  if (!prove) return a;
  for (size_t k = 0; k < items; ++k) {
    for (size_t n = 0; n < mine[k].size(); ++n) {
      l_vec[mine[k][n]] = shares[k].l[n];
      r_vec[mine[k][n]] = shares[k].r[n];
    }
    proof.t_x += shares[k].t_x;
    proof.t_x_blinding += shares[k].t_x_blinding;
    proof.e_blinding += shares[k].e_blinding;
  }
  for (size_t i = r.n; i < r.padded_n; ++i) r_vec[i] = -r.exp_y[i];
  append_scalar(r.transcript, "t_x", proof.t_x);
  append_scalar(r.transcript, "t_x_blinding", proof.t_x_blinding);
  append_scalar(r.transcript, "e_blinding", proof.e_blinding);
  const PedersenGens& pc = r1cs_pedersen();
  const BulletproofGens& gens = r1cs_generators(list.generators_capacity());
  const Scalar w = challenge_scalar(r.transcript, "w");
  const RistrettoPoint Q = pc.B * w;
  std::vector<Scalar> G_factors(r.padded_n), H_factors(r.padded_n);
  for (size_t i = 0; i < r.padded_n; ++i) {
    G_factors[i] = i < r.n1 ? Scalar::one() : r.u;
    H_factors[i] = r.exp_y_inv[i] * G_factors[i];
  }
  proof.ipp_proof = InnerProductProof::create(r.transcript, Q, G_factors, H_factors, gens.G_tables(0, r.padded_n),
                                              gens.H_tables(0, r.padded_n), std::move(l_vec), std::move(r_vec));
  return a;
}

}  // namespace

Result<R1CSAggregate, R1CSBlame> assemble_r1cs(const GadgetList& list, std::string_view label,
                                               std::span<const R1CSFirstPhaseShare> first,
                                               std::span<const R1CSSecondPhaseShare> second,
                                               std::span<const R1CSPolyShare> poly,
                                               std::span<const R1CSProofShare> shares) {
  auto a = assemble(list, label, first, second, poly, shares, true);
  if (!a) return a.error();
  return std::move(a->out);
}

std::vector<size_t> audit_r1cs_shares(const GadgetList& list, std::string_view label,
                                      std::span<const R1CSFirstPhaseShare> first,
                                      std::span<const R1CSSecondPhaseShare> second, std::span<const R1CSPolyShare> poly,
                                      std::span<const R1CSProofShare> shares) {
  auto a = assemble(list, label, first, second, poly, shares, false);
  if (!a) return a.error().blamed;
  std::vector<size_t> blamed;
  for (size_t k = 0; k < shares.size(); ++k)
    if (!shares_fit(*a->replay, k, a->mine[k], a->first_commitment[k], first[k], second[k], poly[k], shares[k]))
      blamed.push_back(k);
  return blamed;
}

// The two steps with the verification between (the audit replays the session again, on the
// failing path only).
Result<R1CSAggregate, R1CSBlame> aggregate_r1cs(const GadgetList& list, std::string_view label,
                                                std::span<const R1CSFirstPhaseShare> first,
                                                std::span<const R1CSSecondPhaseShare> second,
                                                std::span<const R1CSPolyShare> poly,
                                                std::span<const R1CSProofShare> shares) {
  auto out = assemble_r1cs(list, label, first, second, poly, shares);
  if (!out || verify_gadget_list(list, label, out->commitments, out->proof)) return out;
  return R1CSBlame{R1CSError{R1CSErrorKind::VerificationError, "the aggregated proof does not verify"},
                   audit_r1cs_shares(list, label, first, second, poly, shares)};
}

}  // namespace bp
