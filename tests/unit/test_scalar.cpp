// Scalar arithmetic mod l against libsodium's crypto_core_ristretto255_scalar_* reference.
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>
#include <vector>

#include "arith/scalar_recoding.hpp"
#include "bp/scalar.hpp"
#include "vectors.hpp"

using bp::Scalar;

namespace {

std::array<uint8_t, 32> random_canonical() {
  std::array<uint8_t, 32> b;
  crypto_core_ristretto255_scalar_random(b.data());
  return b;
}

Scalar S(const std::array<uint8_t, 32>& b) { return *Scalar::from_canonical_bytes(b); }

}  // namespace

TEST_CASE("arithmetic agrees with libsodium on random scalars") {
  for (int iter = 0; iter < 3000; ++iter) {
    const auto a = random_canonical(), b = random_canonical();
    std::array<uint8_t, 32> expect;
    crypto_core_ristretto255_scalar_add(expect.data(), a.data(), b.data());
    CHECK((S(a) + S(b)).to_bytes() == expect);
    crypto_core_ristretto255_scalar_sub(expect.data(), a.data(), b.data());
    CHECK((S(a) - S(b)).to_bytes() == expect);
    crypto_core_ristretto255_scalar_mul(expect.data(), a.data(), b.data());
    CHECK((S(a) * S(b)).to_bytes() == expect);
    crypto_core_ristretto255_scalar_negate(expect.data(), a.data());
    CHECK((-S(a)).to_bytes() == expect);
    crypto_core_ristretto255_scalar_invert(expect.data(), a.data());
    CHECK(S(a).invert_vartime().to_bytes() == expect);
    if (iter % 10 == 0) CHECK(S(a).invert().to_bytes() == expect);
  }
}

TEST_CASE("wide reduction agrees with libsodium") {
  for (int iter = 0; iter < 3000; ++iter) {
    std::array<uint8_t, 64> wide;
    randombytes_buf(wide.data(), wide.size());
    if (iter == 0) wide.fill(0xff);  // the largest 512-bit input
    std::array<uint8_t, 32> expect;
    crypto_core_ristretto255_scalar_reduce(expect.data(), wide.data());
    CHECK(Scalar::from_bytes_mod_order_wide(wide).to_bytes() == expect);
    std::array<uint8_t, 64> narrow{};
    std::copy(wide.begin(), wide.begin() + 32, narrow.begin());
    crypto_core_ristretto255_scalar_reduce(expect.data(), narrow.data());
    CHECK(Scalar::from_bytes_mod_order(std::span<const uint8_t, 32>(wide.data(), 32)).to_bytes() == expect);
  }
}

TEST_CASE("canonical decoding accepts exactly the values below l") {
  // l itself, l + 1, 2^256 - 1 are rejected; l - 1 and 0 are accepted.
  auto l = bp::test::hex_bytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
  CHECK_FALSE(Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(l.data(), 32)).has_value());
  l[0] += 1;
  CHECK_FALSE(Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(l.data(), 32)).has_value());
  l[0] -= 2;
  auto l_minus_one = Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(l.data(), 32));
  REQUIRE(l_minus_one.has_value());
  CHECK((*l_minus_one + Scalar::one()).is_zero());
  std::array<uint8_t, 32> ones;
  ones.fill(0xff);
  CHECK_FALSE(Scalar::from_canonical_bytes(ones).has_value());
  std::array<uint8_t, 32> zero{};
  CHECK(Scalar::from_canonical_bytes(zero)->is_zero());
}

TEST_CASE("small values, powers and batch inversion") {
  CHECK(Scalar::from_u64(7) * Scalar::from_u64(6) == Scalar::from_u64(42));
  CHECK(Scalar::from_u64(UINT64_MAX).to_bytes()[7] == 0xff);
  CHECK(Scalar::from_u64(3).pow_vartime(5) == Scalar::from_u64(243));
  CHECK(bp::sum_of_powers(Scalar::from_u64(2), 64) == Scalar::from_u64(UINT64_MAX));
  std::vector<Scalar> xs, copy;
  for (int i = 0; i < 17; ++i) xs.push_back(Scalar::from_u64(1000 + 17 * i));
  copy = xs;
  Scalar::batch_invert(xs);
  for (size_t i = 0; i < xs.size(); ++i) CHECK(xs[i] * copy[i] == Scalar::one());
  CHECK(Scalar::zero().invert().is_zero());
}

TEST_CASE("variable-time inversion: edge values and batches") {
  // 1, 2, l - 1, l - 2, small values and powers of two (long runs of halvings).
  std::vector<Scalar> values = {Scalar::one(), Scalar::from_u64(2), -Scalar::one(), -Scalar::from_u64(2)};
  for (uint64_t v : std::initializer_list<uint64_t>{3, 19, 255, uint64_t{1} << 32, uint64_t{1} << 63, UINT64_MAX})
    values.push_back(Scalar::from_u64(v));
  Scalar power = Scalar::one();
  for (int i = 0; i < 252; ++i) power = power + power;
  values.push_back(power);  // 2^252
  for (const Scalar& x : values) {
    CHECK(x.invert_vartime() == x.invert());
    CHECK(x.invert_vartime() * x == Scalar::one());
  }
  CHECK(Scalar::zero().invert_vartime().is_zero());
  std::vector<Scalar> xs;
  for (int i = 0; i < 9; ++i) xs.push_back(S(random_canonical()));
  auto ct = xs, vt = xs;
  const Scalar all_ct = Scalar::batch_invert(ct), all_vt = Scalar::batch_invert_vartime(vt);
  CHECK(all_ct == all_vt);
  CHECK(ct == vt);
}

TEST_CASE("sum of powers by halving equals the plain sum") {
  const Scalar x = S(random_canonical());
  for (size_t n : {0, 1, 2, 3, 4, 7, 8, 64, 100, 256, 4096}) {
    CAPTURE(n);
    Scalar expect, power = Scalar::one();
    for (size_t i = 0; i < n; ++i) {
      expect += power;
      power *= x;
    }
    CHECK(bp::sum_of_powers(x, n) == expect);
  }
}

namespace {

// sum of value·2^pos over the digits.
Scalar from_naf(const bp::detail::NafDigit* digits, int count) {
  Scalar sum;
  for (int k = 0; k < count; ++k) {
    const Scalar magnitude =
        Scalar::from_u64(2).pow_vartime(digits[k].pos) *
        Scalar::from_u64(static_cast<uint64_t>(digits[k].value < 0 ? -digits[k].value : digits[k].value));
    sum = digits[k].value < 0 ? sum - magnitude : sum + magnitude;
  }
  return sum;
}

std::vector<Scalar> recoding_cases() {
  std::vector<Scalar> out{Scalar::zero(), Scalar::one(), -Scalar::one(), Scalar::from_u64(0xff)};
  std::array<uint8_t, 32> b{};
  b.fill(0xff);  // runs of ones across every word boundary
  b[31] = 0x0f;
  out.push_back(S(b));
  b.fill(0);
  b[25] = 0x80;  // one bit after a long run of zeros
  out.push_back(S(b));
  b.fill(0);
  for (size_t i = 0; i < 32; i += 8) b[i + 7] = 0xf8;  // ones ending at the top of each word
  b[31] = 0x08;
  out.push_back(S(b));
  for (int i = 0; i < 40; ++i) out.push_back(S(random_canonical()));
  return out;
}

}  // namespace

TEST_CASE("width-w NAF: the digits sum to the scalar, odd, bounded and spaced; two at once the same") {
  using bp::detail::NafDigit;
  const auto cases = recoding_cases();
  for (int w : {5, 8}) {
    CAPTURE(w);
    for (size_t i = 0; i < cases.size(); ++i) {
      CAPTURE(i);
      NafDigit digits[256];
      const int count = bp::detail::to_naf_vartime(digits, cases[i], w);
      CHECK(from_naf(digits, count) == cases[i]);
      for (int k = 0; k < count; ++k) {
        CHECK(digits[k].value % 2 != 0);
        CHECK(digits[k].value < (1 << (w - 1)));
        CHECK(digits[k].value > -(1 << (w - 1)));
        if (k > 0) CHECK(digits[k].pos >= digits[k - 1].pos + w);
      }
      // Paired with every other case, so either one can finish first.
      const Scalar& other = cases[(i * 7 + 3) % cases.size()];
      NafDigit first[256], second[256];
      int counts[2];
      bp::detail::to_naf_vartime_x2(first, cases[i], second, other, w, counts);
      NafDigit alone[256];
      const int other_count = bp::detail::to_naf_vartime(alone, other, w);
      REQUIRE(counts[0] == count);
      REQUIRE(counts[1] == other_count);
      for (int k = 0; k < count; ++k) CHECK((first[k].pos == digits[k].pos && first[k].value == digits[k].value));
      for (int k = 0; k < other_count; ++k) CHECK((second[k].pos == alone[k].pos && second[k].value == alone[k].value));
    }
  }
}
