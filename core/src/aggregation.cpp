// Party and dealer computations; see docs/range-proof.md for the notation.
#include "bp/aggregation.hpp"

#include <sodium.h>

#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/transcript_protocol.hpp"
#include "ctime.hpp"

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
  msg.V_j = pc_gens.commit(Scalar::from_u64(v), v_blinding).compress();

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
  msg.A_j = RistrettoPoint(A).compress();

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
  msg.S_j = multiscalar_mul(scalars, tables).compress();
  wipe_all(scalars);
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
  PolyCommitment msg{pc_gens.commit(out.t1, out.t_1_blinding).compress(),
                     pc_gens.commit(out.t2, out.t_2_blinding).compress()};
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

Result<DealerBitRound> dealer_bit_challenge(Transcript& t, std::span<const BitCommitment> commitments) {
  DealerBitRound round;
  for (const auto& c : commitments) append_point(t, "V", c.V_j);
  for (const auto& c : commitments) {
    const auto A_j = RistrettoPoint::decompress(c.A_j);
    const auto S_j = RistrettoPoint::decompress(c.S_j);
    if (!A_j || !S_j) return ProofError::VerificationError;
    round.A += *A_j;
    round.S += *S_j;
  }
  append_point(t, "A", round.A.compress());
  append_point(t, "S", round.S.compress());
  round.challenge.y = challenge_scalar(t, "y");
  round.challenge.z = challenge_scalar(t, "z");
  return round;
}

Result<DealerPolyRound> dealer_poly_challenge(Transcript& t, std::span<const PolyCommitment> commitments) {
  DealerPolyRound round;
  for (const auto& c : commitments) {
    const auto T_1 = RistrettoPoint::decompress(c.T_1_j);
    const auto T_2 = RistrettoPoint::decompress(c.T_2_j);
    if (!T_1 || !T_2) return ProofError::VerificationError;
    round.T_1 += *T_1;
    round.T_2 += *T_2;
  }
  append_point(t, "T_1", round.T_1.compress());
  append_point(t, "T_2", round.T_2.compress());
  round.challenge.x = challenge_scalar(t, "x");
  return round;
}

RangeProof dealer_assemble(Transcript& t, const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t n,
                           const DealerBitRound& bit_round, const DealerPolyRound& poly_round,
                           std::span<const ProofShare> shares) {
  const size_t m = shares.size();
  RangeProof proof;
  proof.A = bit_round.A.compress();
  proof.S = bit_round.S.compress();
  proof.T_1 = poly_round.T_1.compress();
  proof.T_2 = poly_round.T_2.compress();
  for (const auto& share : shares) {
    proof.t_x += share.t_x;
    proof.t_x_blinding += share.t_x_blinding;
    proof.e_blinding += share.e_blinding;
  }
  append_scalar(t, "t_x", proof.t_x);
  append_scalar(t, "t_x_blinding", proof.t_x_blinding);
  append_scalar(t, "e_blinding", proof.e_blinding);
  const Scalar w = challenge_scalar(t, "w");
  const RistrettoPoint Q =
      multiscalar_mul_vartime(std::span<const Scalar>(&w, 1), std::span<const RistrettoPoint>(&pc_gens.B, 1));

  const size_t nm = n * m;
  std::vector<Scalar> G_factors(nm, Scalar::one());
  std::vector<Scalar> H_factors(nm);
  const Scalar y_inv = bit_round.challenge.y.invert_vartime();
  Scalar exp = Scalar::one();
  for (auto& f : H_factors) {
    f = exp;
    exp *= y_inv;
  }
  std::vector<Scalar> l, r;
  l.reserve(nm);
  r.reserve(nm);
  for (const auto& share : shares) {
    l.insert(l.end(), share.l_vec.begin(), share.l_vec.end());
    r.insert(r.end(), share.r_vec.begin(), share.r_vec.end());
  }
  // Long vectors (m >= 16 for n = 64) repay the shifted tables in the unfolded rounds.
  const bool shifted = shifted_tables_pay(nm);
  proof.ipp = InnerProductProof::create(
      t, Q, G_factors, H_factors, bp_gens.G_tables_aggregated(n, m), bp_gens.H_tables_aggregated(n, m), std::move(l),
      std::move(r), shifted ? bp_gens.G_shifted_tables_aggregated(n, m) : std::vector<const ShiftedBaseTable*>{},
      shifted ? bp_gens.H_shifted_tables_aggregated(n, m) : std::vector<const ShiftedBaseTable*>{});
  return proof;
}

bool audit_share_vartime(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, size_t j, size_t n,
                         const BitCommitment& bits, const BitChallenge& bit_challenge, const PolyCommitment& poly,
                         const PolyChallenge& poly_challenge, const ProofShare& share) {
  if (share.l_vec.size() != n || share.r_vec.size() != n) return false;
  if (j >= bp_gens.party_capacity() || n > bp_gens.gens_capacity()) return false;
  const Scalar& y = bit_challenge.y;
  const Scalar& z = bit_challenge.z;
  const Scalar& x = poly_challenge.x;
  const Scalar zz = z * z;
  const Scalar z_j = z.pow_vartime(j);
  const Scalar y_jn_inv = y.pow_vartime(j * n).invert_vartime();
  const Scalar y_inv = y.invert_vartime();

  if (!(share.t_x == inner_product(share.l_vec, share.r_vec))) return false;

  const auto A_j = RistrettoPoint::decompress(bits.A_j);
  const auto S_j = RistrettoPoint::decompress(bits.S_j);
  const auto V_j = RistrettoPoint::decompress(bits.V_j);
  const auto T_1 = RistrettoPoint::decompress(poly.T_1_j);
  const auto T_2 = RistrettoPoint::decompress(poly.T_2_j);
  if (!A_j || !S_j || !V_j || !T_1 || !T_2) return false;

  // A_j + x·S_j - e_blinding·B̃ - <l, G_j> - <y^-(jn+i)·r - z·... , H_j> must be the identity:
  // the share's l and r open the party's own A_j and S_j.
  std::vector<Scalar> scalars{Scalar::one(), x, -share.e_blinding};
  std::vector<RistrettoPoint> points{*A_j, *S_j, pc_gens.B_blinding};
  const Scalar minus_z = -z;
  Scalar exp_2 = Scalar::one(), exp_y_inv = y_jn_inv;
  const Scalar zz_z_j = zz * z_j;
  const auto G = bp_gens.G(j, n);
  const auto H = bp_gens.H(j, n);
  for (size_t i = 0; i < n; ++i) {
    scalars.push_back(minus_z - share.l_vec[i]);
    points.push_back(G[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    scalars.push_back(z + exp_y_inv * (zz_z_j * exp_2 - share.r_vec[i]));
    points.push_back(H[i]);
    exp_2 += exp_2;
    exp_y_inv *= y_inv;
  }
  if (!multiscalar_mul_vartime(scalars, points).is_identity()) return false;

  // t_x·B + t_x_blinding·B̃ = z²·z^j·V_j + δ_j·B + x·T_1 + x²·T_2.
  const Scalar delta =
      (z - zz) * sum_of_powers(y, n) * y.pow_vartime(j * n) - z * zz * sum_of_powers(Scalar::from_u64(2), n) * z_j;
  const Scalar t_scalars[5] = {zz_z_j, x, x * x, delta - share.t_x, -share.t_x_blinding};
  const RistrettoPoint t_points[5] = {*V_j, *T_1, *T_2, pc_gens.B, pc_gens.B_blinding};
  return multiscalar_mul_vartime(t_scalars, t_points).is_identity();
}

}  // namespace bp
