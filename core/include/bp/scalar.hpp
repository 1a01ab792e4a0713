// Scalars modulo the ristretto255 group order
// l = 2^252 + 27742317777372353535851937790883648493.
//
// Stored in Montgomery form (x·2^256 mod l) so multiplication needs no division.
// Every operation is constant time; only the explicitly named `_vartime` helpers
// may branch on the value, and they are meant for public data.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace bp {

class RandomSource;
namespace detail {
struct ScalarWords;
}

class Scalar {
 public:
  using Bytes = std::array<uint8_t, 32>;

  constexpr Scalar() = default;  // zero

  static Scalar zero() { return Scalar(); }
  static Scalar one();
  static Scalar from_u64(uint64_t v);
  // Rejects any encoding of a value >= l (the only accepted form is the canonical one).
  static std::optional<Scalar> from_canonical_bytes(std::span<const uint8_t, 32> bytes);
  static Scalar from_bytes_mod_order(std::span<const uint8_t, 32> bytes);
  static Scalar from_bytes_mod_order_wide(std::span<const uint8_t, 64> bytes);
  // Uniform: 64 random bytes reduced mod l.
  static Scalar random(RandomSource& rng);

  Bytes to_bytes() const;

  Scalar operator+(const Scalar& o) const;
  Scalar operator-(const Scalar& o) const;
  Scalar operator*(const Scalar& o) const;
  Scalar operator-() const;
  Scalar& operator+=(const Scalar& o) { return *this = *this + o; }
  Scalar& operator-=(const Scalar& o) { return *this = *this - o; }
  Scalar& operator*=(const Scalar& o) { return *this = *this * o; }
  Scalar square() const { return *this * *this; }

  // 1/x by Fermat (x^(l-2)); zero maps to zero. Constant time.
  Scalar invert() const;
  // 1/x for a public x by the binary extended Euclidean algorithm (its time depends on x),
  // about ten times faster; zero maps to zero.
  Scalar invert_vartime() const;
  // x^e for a public exponent.
  Scalar pow_vartime(uint64_t e) const;
  // Inverts every element in place with one inversion; returns the inverse of the product.
  static Scalar batch_invert(std::span<Scalar> xs);
  // The same for public elements, with invert_vartime.
  static Scalar batch_invert_vartime(std::span<Scalar> xs);

  bool is_zero() const;
  friend bool operator==(const Scalar& a, const Scalar& b);

  // Branch-free selection: mask is all-ones (take b) or zero (keep a).
  static Scalar select(const Scalar& a, const Scalar& b, uint64_t mask);

  void wipe();

 private:
  friend struct detail::ScalarWords;  // the vector kernels' view of the words (arith/scalar_words.hpp)
  uint64_t m_[4] = {0, 0, 0, 0};
};

// Sum of x^0 + x^1 + ... + x^(n-1) for public x.
Scalar sum_of_powers(const Scalar& x, size_t n);

}  // namespace bp
