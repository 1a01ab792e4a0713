// R1CSProof's bytes, as the reference writes and reads them (VECTORS.md, "Proof bytes").
#include <cstring>

#include "bp/r1cs.hpp"

namespace bp {

namespace {

constexpr uint8_t kOnePhase = 0, kTwoPhase = 1;

void put(std::vector<uint8_t>& out, const CompressedRistretto& p) {
  out.insert(out.end(), p.bytes.begin(), p.bytes.end());
}
void put(std::vector<uint8_t>& out, const Scalar& s) {
  const auto b = s.to_bytes();
  out.insert(out.end(), b.begin(), b.end());
}

// Reads 32-byte elements off the front of a span.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : rest_(bytes) {}
  CompressedRistretto point() {
    CompressedRistretto p;
    std::memcpy(p.bytes.data(), rest_.data(), 32);
    rest_ = rest_.subspan(32);
    return p;
  }
  std::optional<Scalar> scalar() {
    auto s = Scalar::from_canonical_bytes(rest_.first<32>());
    rest_ = rest_.subspan(32);
    return s;
  }
  std::span<const uint8_t> rest() const { return rest_; }

 private:
  std::span<const uint8_t> rest_;
};

}  // namespace

bool R1CSProof::has_phase_two_commitments() const {
  return !(A_I2.is_identity_encoding() && A_O2.is_identity_encoding() && S2.is_identity_encoding());
}

size_t R1CSProof::serialized_size() const {
  return 1 + 32 * ((has_phase_two_commitments() ? 14 : 11)) + ipp_proof.serialized_size();
}

std::vector<uint8_t> R1CSProof::to_bytes() const {
  std::vector<uint8_t> out;
  out.reserve(serialized_size());
  const bool two = has_phase_two_commitments();
  out.push_back(two ? kTwoPhase : kOnePhase);
  for (const auto* p : {&A_I1, &A_O1, &S1}) put(out, *p);
  if (two)
    for (const auto* p : {&A_I2, &A_O2, &S2}) put(out, *p);
  for (const auto* p : {&T_1, &T_3, &T_4, &T_5, &T_6}) put(out, *p);
  for (const auto* s : {&t_x, &t_x_blinding, &e_blinding}) put(out, *s);
  ipp_proof.append_bytes(out);
  return out;
}

Result<R1CSProof, R1CSError> R1CSProof::from_bytes(std::span<const uint8_t> bytes) {
  const R1CSError malformed{R1CSErrorKind::FormatError, {}};
  if (bytes.empty()) return malformed;
  const uint8_t version = bytes[0];
  const auto body = bytes.subspan(1);
  if (body.size() % 32 != 0 || (version != kOnePhase && version != kTwoPhase)) return malformed;
  if (body.size() < 32 * size_t{version == kOnePhase ? 11u : 14u}) return malformed;
  Reader r(body);
  R1CSProof p;
  p.A_I1 = r.point();
  p.A_O1 = r.point();
  p.S1 = r.point();
  if (version == kTwoPhase) {
    p.A_I2 = r.point();
    p.A_O2 = r.point();
    p.S2 = r.point();
  }
  for (auto* T : {&p.T_1, &p.T_3, &p.T_4, &p.T_5, &p.T_6}) *T = r.point();
  for (auto* s : {&p.t_x, &p.t_x_blinding, &p.e_blinding}) {
    auto read = r.scalar();
    if (!read) return malformed;
    *s = *read;
  }
  auto ipp = InnerProductProof::from_bytes(r.rest());
  if (!ipp) return malformed;
  p.ipp_proof = std::move(*ipp);
  return p;
}

}  // namespace bp
