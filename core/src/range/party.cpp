// A party's side of a range-proof session: committing to its bits, then its polynomial, then
// its share; see docs/range-proof.md for the notation. The dealer's side is dealer.cpp.
#include "bp/aggregation.hpp"

#include <sodium.h>

#include <array>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/transcript_protocol.hpp"
#include "arith/ctime.hpp"

namespace bp {

using namespace detail;

namespace {

void wipe_all(std::vector<Scalar>& v) {
  for (auto& s : v) s.wipe();
  v.clear();
}

// Bit i of v as an all-ones/zero mask, without a branch.
uint64_t bit_mask(uint64_t v, size_t i) { return 0 - ((v >> i) & 1); }

}  // namespace

PartyBitSecrets::~PartyBitSecrets() {
  sodium_memzero(&v, sizeof v);
  v_blinding.wipe();
  a_blinding.wipe();
  s_blinding.wipe();
  wipe_all(s_L);
  wipe_all(s_R);
}

PartyPolySecrets::~PartyPolySecrets() {
  for (Scalar* s : {&v_blinding, &a_blinding, &s_blinding, &z, &offset_zz, &t0, &t1, &t2, &t_1_blinding, &t_2_blinding})
    s->wipe();
  wipe_all(l0);
  wipe_all(l1);
  wipe_all(r0);
  wipe_all(r1);
}

BitCommitment party_commit_bits(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t j, size_t n,
                                uint64_t v, const Scalar& v_blinding, RandomSource& rng, PartyBitSecrets& out) {
  out.j = j;
  out.n = n;
  out.v = v;
  out.v_blinding = v_blinding;
  BitCommitment msg;
  std::array<RistrettoPoint, 3> points;  // V_j, A_j, S_j, encoded together at the end
  points[0] = pc_gens.commit(Scalar::from_u64(v), v_blinding);

  out.a_blinding = Scalar::random(rng);
  // A = a_blinding·B̃ + sum_i (bit_i ? G_i : -H_i), since a_R = a_L - 1.
  const CtBaseTable* blinding_table = &pc_gens.B_blinding_ct_table();
  EdwardsPoint A = multiscalar_mul(std::span<const Scalar>(&out.a_blinding, 1),
                                   std::span<const CtBaseTable* const>(&blinding_table, 1))
                       .edwards();
  const auto G = bp_gens.G(j, n);
  const auto H = bp_gens.H(j, n);
  for (size_t i = 0; i < n; ++i) {
    CachedPoint term = neg(to_cached(H[i].edwards()));
    cmov(term, to_cached(G[i].edwards()), bit_mask(v, i));
    A = to_extended(add(A, term));
  }
  points[1] = RistrettoPoint(A);

  out.s_blinding = Scalar::random(rng);
  out.s_L.resize(n);
  out.s_R.resize(n);
  for (auto& s : out.s_L) s = Scalar::random(rng);
  for (auto& s : out.s_R) s = Scalar::random(rng);
  std::vector<Scalar> scalars;
  std::vector<const CtBaseTable*> tables;
  scalars.reserve(2 * n + 1);
  tables.reserve(2 * n + 1);
  scalars.push_back(out.s_blinding);
  tables.push_back(blinding_table);
  scalars.insert(scalars.end(), out.s_L.begin(), out.s_L.end());
  const auto G_ct = bp_gens.G_ct_tables(j, n);
  tables.insert(tables.end(), G_ct.begin(), G_ct.end());
  scalars.insert(scalars.end(), out.s_R.begin(), out.s_R.end());
  const auto H_ct = bp_gens.H_ct_tables(j, n);
  tables.insert(tables.end(), H_ct.begin(), H_ct.end());
  points[2] = multiscalar_mul(scalars, tables);
  wipe_all(scalars);
  std::array<CompressedRistretto, 3> encoded;
  RistrettoPoint::compress_batch(points, encoded);  // one exponentiation for the three
  msg.V_j = encoded[0];
  msg.A_j = encoded[1];
  msg.S_j = encoded[2];
  // A_j, S_j and V_j are sent to the dealer: public from here on.
  declassify(&msg, sizeof msg);
  return msg;
}

PolyCommitment party_commit_poly(PartyBitSecrets&& s, const PedersenGens& pc_gens, const BitChallenge& c,
                                 RandomSource& rng, PartyPolySecrets& out) {
  const size_t n = s.n;
  out.j = s.j;
  out.n = n;
  out.v_blinding = s.v_blinding;
  out.a_blinding = s.a_blinding;
  out.s_blinding = s.s_blinding;
  out.z = c.z;
  // Party j's slice of the aggregated vectors: y^(j·n + i) and z^(2+j)·2^i.
  const Scalar offset_y = c.y.pow_vartime(s.j * n);
  const Scalar offset_z = c.z.pow_vartime(s.j);
  out.offset_zz = c.z * c.z * offset_z;
  out.l0.resize(n);
  out.l1.resize(n);
  out.r0.resize(n);
  out.r1.resize(n);
  Scalar exp_y = offset_y, exp_2 = Scalar::one();
  const Scalar one = Scalar::one();
  for (size_t i = 0; i < n; ++i) {
    const Scalar a_L_i = Scalar::select(Scalar::zero(), one, bit_mask(s.v, i));
    const Scalar a_R_i = a_L_i - one;
    out.l0[i] = a_L_i - c.z;
    out.l1[i] = s.s_L[i];
    out.r0[i] = exp_y * (a_R_i + c.z) + out.offset_zz * exp_2;
    out.r1[i] = exp_y * s.s_R[i];
    exp_y *= c.y;
    exp_2 += exp_2;
  }
  // t(X) = <l(X), r(X)>; t1 by Karatsuba: <l0 + l1, r0 + r1> - t0 - t2.
  out.t0 = inner_product(out.l0, out.r0);
  out.t2 = inner_product(out.l1, out.r1);
  Scalar cross;
  for (size_t i = 0; i < n; ++i) cross += (out.l0[i] + out.l1[i]) * (out.r0[i] + out.r1[i]);
  out.t1 = cross - out.t0 - out.t2;
  cross.wipe();

  out.t_1_blinding = Scalar::random(rng);
  out.t_2_blinding = Scalar::random(rng);
  const std::array<RistrettoPoint, 2> points{pc_gens.commit(out.t1, out.t_1_blinding),
                                             pc_gens.commit(out.t2, out.t_2_blinding)};
  std::array<CompressedRistretto, 2> encoded;
  RistrettoPoint::compress_batch(points, encoded);
  PolyCommitment msg{encoded[0], encoded[1]};
  declassify(&msg, sizeof msg);
  PartyBitSecrets consumed = std::move(s);  // wiped when this scope ends
  return msg;
}

ProofShare party_prove_share(PartyPolySecrets&& s, const PolyChallenge& c) {
  const Scalar& x = c.x;
  ProofShare share;
  const Scalar x_sq = x * x;
  share.t_x = s.t0 + s.t1 * x + s.t2 * x_sq;
  share.t_x_blinding = s.offset_zz * s.v_blinding + s.t_1_blinding * x + s.t_2_blinding * x_sq;
  share.e_blinding = s.a_blinding + s.s_blinding * x;
  share.l_vec.resize(s.n);
  share.r_vec.resize(s.n);
  for (size_t i = 0; i < s.n; ++i) {
    share.l_vec[i] = s.l0[i] + s.l1[i] * x;
    share.r_vec[i] = s.r0[i] + s.r1[i] * x;
  }
  // The share goes to the dealer. l and r are masked by s_L·x and s_R·x, t_x_blinding and
  // e_blinding by fresh blindings, so the share reveals nothing about v (Bulletproofs §4.5);
  // from here on these are public values and may drive variable-time code.
  declassify(&share.t_x, sizeof share.t_x);
  declassify(&share.t_x_blinding, sizeof share.t_x_blinding);
  declassify(&share.e_blinding, sizeof share.e_blinding);
  declassify(share.l_vec.data(), share.l_vec.size() * sizeof(Scalar));
  declassify(share.r_vec.data(), share.r_vec.size() * sizeof(Scalar));
  PartyPolySecrets consumed = std::move(s);
  return share;
}

}  // namespace bp
