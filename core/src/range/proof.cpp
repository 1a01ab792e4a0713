#include "bp/range_proof.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "bp/aggregation.hpp"
#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/transcript_protocol.hpp"
#include "arith/ctime.hpp"
#include "backend/scalar_lanes.hpp"
#include "range/prove_with_rng.hpp"
#include "range/verification_equation.hpp"

namespace bp {

bool is_valid_bitsize(size_t n) { return n == 8 || n == 16 || n == 32 || n == 64; }
bool is_power_of_two(size_t m) { return m != 0 && (m & (m - 1)) == 0; }

size_t RangeProof::serialized_size(size_t n, size_t m) {
  size_t lg = 0;
  while ((size_t{1} << lg) < n * m) ++lg;
  return (2 * lg + 9) * 32;
}

namespace detail {

Result<RangeProof::Proved> prove_multiple_with_rng(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                   Transcript& transcript, std::span<const uint64_t> values,
                                                   std::span<const Scalar> blindings, size_t n, RandomSource& rng) {
  const size_t m = values.size();
  if (values.size() != blindings.size()) return ProofError::WrongNumBlindingFactors;
  if (!is_valid_bitsize(n)) return ProofError::InvalidBitsize;
  if (!is_power_of_two(m)) return ProofError::InvalidAggregation;
  if (bp_gens.gens_capacity() < n || bp_gens.party_capacity() < m) return ProofError::InvalidGeneratorsLength;
  // Whether every value fits is the one bit about the values the caller learns anyway.
  uint64_t out_of_range = 0;
  for (uint64_t v : values) out_of_range |= n == 64 ? 0 : (v >> n);
  declassify(&out_of_range, sizeof out_of_range);
  if (out_of_range != 0) return ProofError::ValueOutOfRange;

  rangeproof_domain_sep(transcript, n, m);
  std::vector<PartyBitSecrets> bit_secrets(m);
  std::vector<BitCommitment> bit_commitments(m);
  for (size_t j = 0; j < m; ++j)
    bit_commitments[j] = party_commit_bits(bp_gens, pc_gens, j, n, values[j], blindings[j], rng, bit_secrets[j]);
  auto bit_round = dealer_bit_challenge(transcript, bit_commitments);
  if (!bit_round) return bit_round.error();  // unreachable: our own points always decode

  std::vector<PartyPolySecrets> poly_secrets(m);
  std::vector<PolyCommitment> poly_commitments(m);
  for (size_t j = 0; j < m; ++j)
    poly_commitments[j] =
        party_commit_poly(std::move(bit_secrets[j]), pc_gens, bit_round->challenge, rng, poly_secrets[j]);
  auto poly_round = dealer_poly_challenge(transcript, poly_commitments);
  if (!poly_round) return poly_round.error();

  std::vector<ProofShare> shares;
  shares.reserve(m);
  for (size_t j = 0; j < m; ++j) shares.push_back(party_prove_share(std::move(poly_secrets[j]), poly_round->challenge));

  RangeProof::Proved out;
  out.proof = dealer_assemble(transcript, bp_gens, pc_gens, n, *bit_round, *poly_round, shares);
  for (const auto& c : bit_commitments) out.commitments.push_back(c.V_j);
  return out;
}

}  // namespace detail

Result<RangeProof::Proved> RangeProof::prove_multiple(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                      Transcript& transcript, std::span<const uint64_t> values,
                                                      std::span<const Scalar> blindings, size_t n) {
  SystemRandom rng;
  return detail::prove_multiple_with_rng(bp_gens, pc_gens, transcript, values, blindings, n, rng);
}

Result<RangeProof::Proved> RangeProof::prove_single(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                    Transcript& transcript, uint64_t value, const Scalar& blinding,
                                                    size_t n) {
  return prove_multiple(bp_gens, pc_gens, transcript, {&value, 1}, {&blinding, 1}, n);
}

namespace {

// (z - z²)·<1, y^(nm)> - sum_j z^(j+3)·<1, 2^n>.
Scalar delta(size_t n, size_t m, const Scalar& y, const Scalar& z) {
  const Scalar sum_y = sum_of_powers(y, n * m);
  const Scalar sum_2 = sum_of_powers(Scalar::from_u64(2), n);
  const Scalar sum_z = sum_of_powers(z, m);
  return (z - z * z) * sum_y - z * z * z * sum_2 * sum_z;
}

}  // namespace

namespace detail {

void append_equation_points(const RangeProof& proof, std::span<const CompressedRistretto> commitments,
                            std::vector<CompressedRistretto>& out) {
  out.insert(out.end(), {proof.A, proof.S, proof.T_1, proof.T_2});
  out.insert(out.end(), proof.ipp.L_vec.begin(), proof.ipp.L_vec.end());
  out.insert(out.end(), proof.ipp.R_vec.begin(), proof.ipp.R_vec.end());
  out.insert(out.end(), commitments.begin(), commitments.end());
}

Result<EquationChallenges> equation_challenges(const RangeProof& proof, const BulletproofGens& bp_gens,
                                               Transcript& transcript, std::span<const CompressedRistretto> commitments,
                                               size_t n) {
  const size_t m = commitments.size();
  if (!is_valid_bitsize(n)) return ProofError::InvalidBitsize;
  if (bp_gens.gens_capacity() < n || bp_gens.party_capacity() < m) return ProofError::InvalidGeneratorsLength;

  EquationChallenges ch;
  ch.n = n;
  ch.m = m;
  rangeproof_domain_sep(transcript, n, m);
  // Commitments may be the identity (value 0 with blinding 0), as in the reference.
  for (const auto& V : commitments) append_point(transcript, "V", V);
  if (!validate_and_append_point(transcript, "A", proof.A)) return ProofError::VerificationError;
  if (!validate_and_append_point(transcript, "S", proof.S)) return ProofError::VerificationError;
  ch.y = challenge_scalar(transcript, "y");
  ch.z = challenge_scalar(transcript, "z");
  if (!validate_and_append_point(transcript, "T_1", proof.T_1)) return ProofError::VerificationError;
  if (!validate_and_append_point(transcript, "T_2", proof.T_2)) return ProofError::VerificationError;
  ch.x = challenge_scalar(transcript, "x");
  append_scalar(transcript, "t_x", proof.t_x);
  append_scalar(transcript, "t_x_blinding", proof.t_x_blinding);
  append_scalar(transcript, "e_blinding", proof.e_blinding);
  ch.w = challenge_scalar(transcript, "w");
  auto u = proof.ipp.verification_challenges(n * m, transcript);
  if (!u) return u.error();
  ch.u = std::move(*u);
  return ch;
}

void append_values_to_invert(const EquationChallenges& ch, std::vector<Scalar>& out) {
  out.insert(out.end(), ch.u.begin(), ch.u.end());
  out.push_back(ch.y);
}

Result<VerificationEquation> verification_equation(const RangeProof& proof, const BulletproofGens& bp_gens,
                                                   Transcript& transcript,
                                                   std::span<const CompressedRistretto> commitments, size_t n,
                                                   const Scalar& weight,
                                                   std::span<const std::optional<RistrettoPoint>> decoded) {
  auto ch = equation_challenges(proof, bp_gens, transcript, commitments, n);
  if (!ch) return ch.error();
  std::vector<Scalar> inverses;
  append_values_to_invert(*ch, inverses);
  Scalar::batch_invert_vartime(inverses);
  // A random weight folds the two verification equations into one multiscalar multiplication.
  SystemRandom rng;
  return equation_from_challenges(proof, commitments, *ch, inverses, weight, Scalar::random(rng), decoded);
}

Result<VerificationEquation> equation_from_challenges(const RangeProof& proof,
                                                      std::span<const CompressedRistretto> commitments,
                                                      const EquationChallenges& ch, std::span<const Scalar> inverses,
                                                      const Scalar& weight, const Scalar& c,
                                                      std::span<const std::optional<RistrettoPoint>> decoded) {
  const auto& ipp = proof.ipp;
  const size_t n = ch.n, m = ch.m, nm = n * m;
  const Scalar &y = ch.y, &z = ch.z, &x = ch.x, &w = ch.w;
  if (inverses.size() != ch.u.size() + 1) return ProofError::VerificationError;
  const Scalar& y_inv = inverses.back();
  const size_t lg = ch.u.size();
  if ((size_t{1} << lg) != nm) return ProofError::VerificationError;
  std::vector<Scalar> u_sq(lg), u_inv_sq(lg);
  Scalar all_u = Scalar::one(), all_u_inv = Scalar::one();
  for (size_t k = 0; k < lg; ++k) {
    u_sq[k] = ch.u[k].square();
    u_inv_sq[k] = inverses[k].square();
    all_u *= ch.u[k];
    all_u_inv *= inverses[k];
  }
  const Scalar& a = ipp.a;
  const Scalar& b = ipp.b;
  const Scalar zz = z * z;
  const Scalar weighted_z = weight * z;
  const Scalar weighted_a = weight * a;
  const Scalar weighted_c = weight * c;

  VerificationEquation eq;
  eq.n = n;
  eq.m = m;
  eq.points.reserve(4 + 2 * lg + m);
  // The scalars in append_equation_points' order.
  eq.scalars = {weight, weight * x, weighted_c * x, weighted_c * x * x};
  for (const Scalar& u : u_sq) eq.scalars.push_back(weight * u);
  for (const Scalar& u : u_inv_sq) eq.scalars.push_back(weight * u);
  Scalar weighted_czz_zj = weighted_c * zz;
  for (size_t j = 0; j < m; ++j) {
    eq.scalars.push_back(weighted_czz_zj);
    weighted_czz_zj *= z;
  }
  // Points that come with the proof must decode; they are decoded together (sixteen or four
  // square roots at a time where the CPU has the vector units), here or by the caller.
  std::vector<std::optional<RistrettoPoint>> decoded_here;
  if (decoded.empty()) {
    std::vector<CompressedRistretto> encoded;
    encoded.reserve(eq.scalars.size());
    append_equation_points(proof, commitments, encoded);
    decoded_here.resize(encoded.size());
    RistrettoPoint::decompress_batch(encoded, decoded_here);
    decoded = decoded_here;
  }
  if (decoded.size() != eq.scalars.size()) return ProofError::VerificationError;
  for (const auto& p : decoded) {
    if (!p) return ProofError::VerificationError;
    eq.points.push_back(*p);
  }

  eq.B_blinding = weight * (-proof.e_blinding - c * proof.t_x_blinding);
  eq.B = weight * (w * (proof.t_x - a * b) + c * (delta(n, m, y, z) - proof.t_x));
  // g_i = -z - a·s_i on G_i;  h_i = z + y^-i·(z²·z^(i/n)·2^(i%n) - b·s_(nm-1-i)) on H_i;
  // both times the weight, where s_i = prod_k u_k^(±1) (the sign from bit lg-1-k of i).
  // Three multiplications an index where the plain formulas take five, and those in runs
  // by one factor (multiply_each: eight in one vector multiplication on IFMA):
  //   a·s_i: setting bit l of i multiplies s_i by u²_(lg-1-l), from s_0 = prod u_k⁻¹; a
  //     run of eight indexes is its first times the products of its low three bits' u².
  //   y^-i·s_(nm-1-i) (nm-1-i has the bits of i flipped): setting bit l multiplies it by
  //     u⁻²_(lg-1-l)·y^-(2^l), from s_(nm-1) = prod u_k; runs as a·s_i's.
  //   y^-i·z²·z^j·2^bit (i = j·n + bit): a party's block is its start times the powers of
  //     2/y, and one block's start is the last one's times z·y^-n.
  std::vector<Scalar> flip_h(lg);  // u⁻²_(lg-1-l)·y^-(2^l)
  Scalar y_inv_pow = y_inv;        // y^-(2^l)
  for (size_t l = 0; l < lg; ++l, y_inv_pow = y_inv_pow.square()) flip_h[l] = u_inv_sq[lg - 1 - l] * y_inv_pow;
  const size_t run = std::min<size_t>(8, n);  // n is a power of two, so runs tile every block
  const auto top_bit = [](size_t i) { return 63 - static_cast<size_t>(__builtin_clzll(i)); };
  // The low bits' products: a_low[r] = prod u²_(lg-1-l), b_low[r] = prod flip_h[l], over r's bits l.
  std::vector<Scalar> a_low(run), b_low(run);
  a_low[0] = b_low[0] = Scalar::one();
  for (size_t r = 1; r < run; ++r) {
    const size_t l = top_bit(r);
    a_low[r] = a_low[r - (size_t{1} << l)] * u_sq[lg - 1 - l];
    b_low[r] = b_low[r - (size_t{1} << l)] * flip_h[l];
  }
  // G and H first hold weight·a·s_i and weight·b·y^-i·s_(nm-1-i): each run's first from an
  // earlier run's first, then the runs.
  auto& a_s = eq.G;
  auto& b_s = eq.H;
  a_s.resize(nm);
  b_s.resize(nm);
  a_s[0] = weighted_a * all_u_inv;
  b_s[0] = weight * b * all_u;
  for (size_t i = run; i < nm; i += run) {
    const size_t l = top_bit(i);
    a_s[i] = a_s[i - (size_t{1} << l)] * u_sq[lg - 1 - l];
    b_s[i] = b_s[i - (size_t{1} << l)] * flip_h[l];
  }
  for (size_t i = 0; i < nm; i += run) {
    multiply_each(std::span(a_s).subspan(i, run), a_s[i], a_low);
    multiply_each(std::span(b_s).subspan(i, run), b_s[i], b_low);
  }
  // (2/y)^bit for bit < n: the first run one by one, later runs as the first run times
  // their own first.
  std::vector<Scalar> two_y_inv_pow(n);
  const Scalar two_y_inv = y_inv + y_inv;
  two_y_inv_pow[0] = Scalar::one();
  for (size_t bit = 1; bit < run; ++bit) two_y_inv_pow[bit] = two_y_inv_pow[bit - 1] * two_y_inv;
  const Scalar run_step = two_y_inv_pow[run - 1] * two_y_inv;
  for (size_t bit = run; bit < n; bit += run) {
    two_y_inv_pow[bit] = two_y_inv_pow[bit - run] * run_step;
    multiply_each(std::span(two_y_inv_pow).subspan(bit, run), two_y_inv_pow[bit],
                  std::span<const Scalar>(two_y_inv_pow).first(run));
  }
  Scalar y_inv_n = y_inv;  // y^-n (n a power of two)
  for (size_t k = 1; k < n; k += k) y_inv_n = y_inv_n.square();
  const Scalar block_step = z * y_inv_n;
  Scalar block_start = weight * zz;  // weight·z²·z^j·y^-(j·n)
  std::vector<Scalar> powers(n);     // weight·z²·z^j·2^bit·y^-i along block j
  for (size_t j = 0, i = 0; j < m; ++j, block_start *= block_step) {
    multiply_each(powers, block_start, two_y_inv_pow);
    for (size_t bit = 0; bit < n; ++bit, ++i) {
      eq.G[i] = -weighted_z - a_s[i];
      eq.H[i] = weighted_z + powers[bit] - b_s[i];  // the same element: read, then written
    }
  }
  return eq;
}

}  // namespace detail

Status RangeProof::verify_multiple(const BulletproofGens& bp_gens, const PedersenGens& pc_gens, Transcript& transcript,
                                   std::span<const CompressedRistretto> commitments, size_t n) const {
  auto eq = detail::verification_equation(*this, bp_gens, transcript, commitments, n);
  if (!eq) return eq.error();
  if (!detail::generator_sum_is_identity(bp_gens, pc_gens, n, eq->m, eq->B_blinding, eq->B, eq->G, eq->H,
                                         std::move(eq->scalars), std::move(eq->points)))
    return ProofError::VerificationError;
  return Ok{};
}

std::vector<uint8_t> RangeProof::to_bytes() const {
  std::vector<uint8_t> out;
  out.reserve(7 * 32 + ipp.serialized_size());
  for (const auto* p : {&A, &S, &T_1, &T_2}) out.insert(out.end(), p->bytes.begin(), p->bytes.end());
  for (const auto* s : {&t_x, &t_x_blinding, &e_blinding}) {
    const auto b = s->to_bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  ipp.append_bytes(out);
  return out;
}

Result<RangeProof> RangeProof::from_bytes(std::span<const uint8_t> bytes) {
  if (bytes.size() % 32 != 0 || bytes.size() < 7 * 32) return ProofError::FormatError;
  RangeProof proof;
  CompressedRistretto* points[4] = {&proof.A, &proof.S, &proof.T_1, &proof.T_2};
  for (int i = 0; i < 4; ++i) std::memcpy(points[i]->bytes.data(), bytes.data() + 32 * i, 32);
  Scalar* scalars[3] = {&proof.t_x, &proof.t_x_blinding, &proof.e_blinding};
  for (int i = 0; i < 3; ++i) {
    const auto s = Scalar::from_canonical_bytes(bytes.subspan(32 * (4 + i)).first<32>());
    if (!s) return ProofError::FormatError;
    *scalars[i] = *s;
  }
  auto ipp = InnerProductProof::from_bytes(bytes.subspan(7 * 32));
  if (!ipp) return ipp.error();
  proof.ipp = std::move(*ipp);
  return proof;
}

}  // namespace bp
