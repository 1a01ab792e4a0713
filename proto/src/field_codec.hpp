// The field-level helpers the encoder and decoder share: bytes of points and scalars out,
// and every field from the network checked on the way in (length, canonical encoding,
// count). Internal to proto/src.
#pragma once

#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aggregation.pb.h"
#include "bp/wire/codec.hpp"

namespace bp::wire::detail {

namespace pb = ::bp::wire::v1;

inline CodecError error(CodecErrorKind kind, std::string detail) { return {kind, std::move(detail)}; }

// ---- encoding ----

inline std::string bytes_of(const CompressedRistretto& p) {
  return {reinterpret_cast<const char*>(p.bytes.data()), 32};
}
inline std::string bytes_of(const Scalar& s) {
  const auto b = s.to_bytes();
  return {reinterpret_cast<const char*>(b.data()), 32};
}
inline std::string bytes_of(const std::vector<Scalar>& v) {
  std::string out;
  out.reserve(32 * v.size());
  for (const auto& s : v) out += bytes_of(s);
  return out;
}

inline void fill(pb::BitCommitment* out, const BitCommitment& c) {
  out->set_v(bytes_of(c.V_j));
  out->set_a(bytes_of(c.A_j));
  out->set_s(bytes_of(c.S_j));
}
inline void fill(pb::PolyCommitment* out, const PolyCommitment& c) {
  out->set_t1(bytes_of(c.T_1_j));
  out->set_t2(bytes_of(c.T_2_j));
}

inline void fill(pb::ValueBounds* out, const ValueBounds& b) {
  out->set_min(b.min);
  if (b.max) out->set_max(*b.max);
}
template <class Repeated>
void fill_bounds(Repeated* out, const std::vector<ValueBounds>& bounds) {
  for (const auto& b : bounds) fill(out->Add(), b);
}
inline void fill(pb::ProofShare* m, const ProofShare& s) {
  m->set_t_x(bytes_of(s.t_x));
  m->set_t_x_blinding(bytes_of(s.t_x_blinding));
  m->set_e_blinding(bytes_of(s.e_blinding));
  m->set_l(bytes_of(s.l_vec));
  m->set_r(bytes_of(s.r_vec));
}

inline void fill(pb::R1CSFirstPhase* m, const R1CSFirstPhaseShare& f) {
  for (const auto& v : f.V) m->add_v(bytes_of(v));
  m->set_a_i1(bytes_of(f.A_I1));
  m->set_a_o1(bytes_of(f.A_O1));
  m->set_s1(bytes_of(f.S1));
}
inline void fill(pb::R1CSSecondPhase* m, const R1CSSecondPhaseShare& f) {
  m->set_a_i2(bytes_of(f.A_I2));
  m->set_a_o2(bytes_of(f.A_O2));
  m->set_s2(bytes_of(f.S2));
}
inline void fill(pb::R1CSPolyCommitment* m, const R1CSPolyShare& p) {
  m->set_t1(bytes_of(p.T_1));
  m->set_t3(bytes_of(p.T_3));
  m->set_t4(bytes_of(p.T_4));
  m->set_t5(bytes_of(p.T_5));
  m->set_t6(bytes_of(p.T_6));
}
inline void fill(pb::R1CSProofShare* m, const R1CSProofShare& s) {
  m->set_l(bytes_of(s.l));
  m->set_r(bytes_of(s.r));
  m->set_t_x(bytes_of(s.t_x));
  m->set_t_x_blinding(bytes_of(s.t_x_blinding));
  m->set_e_blinding(bytes_of(s.e_blinding));
}

// ---- decoding: every field checked ----

inline Result<CompressedRistretto, CodecError> point(const std::string& b, const char* what) {
  if (b.size() != 32) return error(CodecErrorKind::BadLength, std::string(what) + " is not 32 bytes");
  CompressedRistretto p;
  std::memcpy(p.bytes.data(), b.data(), 32);
  if (!RistrettoPoint::decompress(p))
    return error(CodecErrorKind::NonCanonical, std::string(what) + " does not decode");
  return p;
}

inline Result<Scalar, CodecError> scalar(const std::string& b, const char* what) {
  if (b.size() != 32) return error(CodecErrorKind::BadLength, std::string(what) + " is not 32 bytes");
  auto s = Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(reinterpret_cast<const uint8_t*>(b.data()), 32));
  if (!s) return error(CodecErrorKind::NonCanonical, std::string(what) + " is not a canonical scalar");
  return *s;
}

inline Result<std::vector<Scalar>, CodecError> scalars(const std::string& b, const char* what, size_t max) {
  if (b.size() % 32 != 0)
    return error(CodecErrorKind::BadLength, std::string(what) + " is not a whole number of scalars");
  if (b.size() / 32 > max) return error(CodecErrorKind::TooMany, std::string(what) + " has too many scalars");
  std::vector<Scalar> out;
  out.reserve(b.size() / 32);
  for (size_t i = 0; i < b.size(); i += 32) {
    auto s = scalar(b.substr(i, 32), what);
    if (!s) return s.error();
    out.push_back(*s);
  }
  return out;
}

template <size_t N>
inline Result<std::array<uint8_t, N>, CodecError> fixed(const std::string& b, const char* what) {
  if (b.size() != N)
    return error(CodecErrorKind::BadLength, std::string(what) + " is not " + std::to_string(N) + " bytes");
  std::array<uint8_t, N> out;
  std::memcpy(out.data(), b.data(), N);
  return out;
}

// A key and a signature, both present or both absent.
inline Result<std::optional<KeySignature>, CodecError> key_signature(const std::string& key, const std::string& sig,
                                                                     const char* what) {
  if (key.empty() && sig.empty()) return std::optional<KeySignature>{};
  auto k = fixed<kPublicKeyBytes>(key, what);
  if (!k) return k.error();
  auto s = fixed<kSignatureBytes>(sig, "signature");
  if (!s) return s.error();
  return std::optional<KeySignature>{KeySignature{*k, *s}};
}

inline std::string text_of(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// Stops at the first field that fails its check.
#define BP_TRY(var, expr)                         \
  auto var##_result = (expr);                     \
  if (!var##_result) return var##_result.error(); \
  auto var = std::move(*var##_result)

inline Result<BitCommitment, CodecError> bit_commitment(const pb::BitCommitment& m) {
  BP_TRY(V, point(m.v(), "V"));
  BP_TRY(A, point(m.a(), "A"));
  BP_TRY(S, point(m.s(), "S"));
  return BitCommitment{V, A, S};
}

inline Result<PolyCommitment, CodecError> poly_commitment(const pb::PolyCommitment& m) {
  BP_TRY(T1, point(m.t1(), "T1"));
  BP_TRY(T2, point(m.t2(), "T2"));
  return PolyCommitment{T1, T2};
}

inline Result<ProofShare, CodecError> proof_share(const pb::ProofShare& m, size_t max_bits) {
  ProofShare out;
  BP_TRY(t_x, scalar(m.t_x(), "t_x"));
  BP_TRY(t_x_blinding, scalar(m.t_x_blinding(), "t_x_blinding"));
  BP_TRY(e_blinding, scalar(m.e_blinding(), "e_blinding"));
  BP_TRY(l, scalars(m.l(), "l", max_bits));
  BP_TRY(r, scalars(m.r(), "r", max_bits));
  out.t_x = t_x;
  out.t_x_blinding = t_x_blinding;
  out.e_blinding = e_blinding;
  out.l_vec = std::move(l);
  out.r_vec = std::move(r);
  return out;
}

// 1.5: a gadget session's round messages. Points must decode (the identity is allowed: a
// gadget without a second phase commits to nothing there); `max_commitments` caps the V.
inline Result<R1CSFirstPhaseShare, CodecError> r1cs_first_phase(const pb::R1CSFirstPhase& m, size_t max_commitments) {
  if (m.v_size() == 0 || static_cast<size_t>(m.v_size()) > max_commitments)
    return error(CodecErrorKind::TooMany, "a first phase has 1 to " + std::to_string(max_commitments) + " commitments");
  R1CSFirstPhaseShare out;
  for (const auto& v : m.v()) {
    BP_TRY(V, point(v, "V"));
    out.V.push_back(V);
  }
  BP_TRY(A_I1, point(m.a_i1(), "A_I1"));
  BP_TRY(A_O1, point(m.a_o1(), "A_O1"));
  BP_TRY(S1, point(m.s1(), "S1"));
  out.A_I1 = A_I1;
  out.A_O1 = A_O1;
  out.S1 = S1;
  return out;
}
inline Result<R1CSSecondPhaseShare, CodecError> r1cs_second_phase(const pb::R1CSSecondPhase& m) {
  BP_TRY(A_I2, point(m.a_i2(), "A_I2"));
  BP_TRY(A_O2, point(m.a_o2(), "A_O2"));
  BP_TRY(S2, point(m.s2(), "S2"));
  return R1CSSecondPhaseShare{A_I2, A_O2, S2};
}
inline Result<R1CSPolyShare, CodecError> r1cs_poly(const pb::R1CSPolyCommitment& m) {
  BP_TRY(T1, point(m.t1(), "T1"));
  BP_TRY(T3, point(m.t3(), "T3"));
  BP_TRY(T4, point(m.t4(), "T4"));
  BP_TRY(T5, point(m.t5(), "T5"));
  BP_TRY(T6, point(m.t6(), "T6"));
  return R1CSPolyShare{T1, T3, T4, T5, T6};
}
inline Result<R1CSProofShare, CodecError> r1cs_proof_share(const pb::R1CSProofShare& m, size_t max_multipliers) {
  BP_TRY(l, scalars(m.l(), "l", max_multipliers));
  BP_TRY(r, scalars(m.r(), "r", max_multipliers));
  if (l.size() != r.size()) return error(CodecErrorKind::BadLength, "l and r differ in length");
  BP_TRY(t_x, scalar(m.t_x(), "t_x"));
  BP_TRY(t_x_blinding, scalar(m.t_x_blinding(), "t_x_blinding"));
  BP_TRY(e_blinding, scalar(m.e_blinding(), "e_blinding"));
  return R1CSProofShare{std::move(l), std::move(r), t_x, t_x_blinding, e_blinding};
}

// 1.4 bounds: at most `limit` of them, each min <= max (whether a bit size covers them is
// the session's check).
template <class Repeated>
Result<std::vector<ValueBounds>, CodecError> value_bounds(const Repeated& in, size_t limit) {
  if (static_cast<size_t>(in.size()) > limit) return error(CodecErrorKind::TooMany, "more bounds than values");
  std::vector<ValueBounds> out;
  out.reserve(static_cast<size_t>(in.size()));
  for (const auto& b : in) {
    ValueBounds v{b.min(), std::nullopt};
    if (b.has_max()) {
      if (b.max() < b.min()) return error(CodecErrorKind::BadLength, "bounds with min above max");
      v.max = b.max();
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace bp::wire::detail
