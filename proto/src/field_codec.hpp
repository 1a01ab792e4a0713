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
