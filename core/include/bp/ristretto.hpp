// ristretto255 (RFC 9496): a prime-order group built on edwards25519.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "bp/detail/edwards.hpp"
#include "bp/scalar.hpp"

namespace bp {

// The 32-byte encoding. The identity encodes as 32 zero bytes.
struct CompressedRistretto {
  std::array<uint8_t, 32> bytes{};

  bool is_identity_encoding() const;
  friend bool operator==(const CompressedRistretto&, const CompressedRistretto&) = default;
};

class RistrettoPoint {
 public:
  RistrettoPoint() : p_(detail::kIdentity) {}
  explicit RistrettoPoint(const detail::EdwardsPoint& p) : p_(p) {}

  static RistrettoPoint identity() { return RistrettoPoint(); }
  static RistrettoPoint basepoint() { return RistrettoPoint(detail::kBasepoint); }

  // Decoding rejects every non-canonical or invalid encoding (RFC 9496 section 4.3.1).
  static std::optional<RistrettoPoint> decompress(const CompressedRistretto& c);
  // out[i] = decompress(in[i]) for every i, faster on the AVX2 backend (four square roots
  // share one vectorised exponentiation). Sizes must match (the shorter one wins).
  static void decompress_batch(std::span<const CompressedRistretto> in, std::span<std::optional<RistrettoPoint>> out);
  // The one-way map of RFC 9496 section 4.3.4 on 64 uniform bytes.
  static RistrettoPoint from_uniform_bytes(std::span<const uint8_t, 64> bytes);

  CompressedRistretto compress() const;
  // out[i] = in[i].compress() for every i, several square roots sharing one vectorised
  // exponentiation where the CPU has AVX2 or AVX-512 IFMA. Sizes must match (the shorter
  // one wins).
  static void compress_batch(std::span<const RistrettoPoint> in, std::span<CompressedRistretto> out);

  RistrettoPoint operator+(const RistrettoPoint& o) const { return RistrettoPoint(p_ + o.p_); }
  RistrettoPoint operator-(const RistrettoPoint& o) const { return RistrettoPoint(p_ - o.p_); }
  RistrettoPoint operator-() const { return RistrettoPoint(detail::neg(p_)); }
  RistrettoPoint& operator+=(const RistrettoPoint& o) { return *this = *this + o; }
  // Constant-time scalar multiplication.
  RistrettoPoint operator*(const Scalar& s) const;

  // Group equality (different Edwards representatives of one ristretto element compare equal).
  friend bool operator==(const RistrettoPoint& a, const RistrettoPoint& b);
  bool is_identity() const { return *this == identity(); }

  const detail::EdwardsPoint& edwards() const { return p_; }

 private:
  detail::EdwardsPoint p_;
};

}  // namespace bp
