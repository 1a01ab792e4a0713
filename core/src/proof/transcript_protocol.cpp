#include "bp/transcript_protocol.hpp"

#include <array>

namespace bp {
namespace {
std::span<const uint8_t> ascii(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
}  // namespace

void rangeproof_domain_sep(Transcript& t, uint64_t n, uint64_t m) {
  t.append_message("dom-sep", ascii("rangeproof v1"));
  t.append_u64("n", n);
  t.append_u64("m", m);
}

void innerproduct_domain_sep(Transcript& t, uint64_t n) {
  t.append_message("dom-sep", ascii("ipp v1"));
  t.append_u64("n", n);
}

void append_point(Transcript& t, std::string_view label, const CompressedRistretto& p) {
  t.append_message(label, p.bytes);
}

void append_scalar(Transcript& t, std::string_view label, const Scalar& s) {
  const auto bytes = s.to_bytes();
  t.append_message(label, bytes);
}

bool validate_and_append_point(Transcript& t, std::string_view label, const CompressedRistretto& p) {
  if (p.is_identity_encoding()) return false;
  append_point(t, label, p);
  return true;
}

Scalar challenge_scalar(Transcript& t, std::string_view label) {
  std::array<uint8_t, 64> wide;
  t.challenge_bytes(label, wide);
  return Scalar::from_bytes_mod_order_wide(wide);
}

}  // namespace bp
