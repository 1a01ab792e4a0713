// The eight-lane scalar multiplication (backend/ifma/scalar52x8.inc) against Scalar's own,
// on emulated instructions on every machine and on the CPU's where it has AVX-512 IFMA; and
// multiply_each, which the verifier's equation uses, against the one-at-a-time products.
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>
#include <vector>

#include "arith/scalar_words.hpp"
#include "backend/cpu_features.hpp"
#include "backend/ifma/scalar_lanes_ifma.hpp"
#include "backend/ifma/v8_emulated.hpp"
#include "backend/scalar_lanes.hpp"
#include "bp/scalar.hpp"

namespace emulated_scalar_lanes {
using namespace bp::detail::ifma_emulated;
#define BP_LANES_INLINE inline
#define BP_LANES_FN
#include "backend/ifma/scalar52x8.inc"
#undef BP_LANES_FN
#undef BP_LANES_INLINE
}  // namespace emulated_scalar_lanes

namespace {

using bp::Scalar;
using bp::detail::ScalarWords;

constexpr uint64_t kL[4] = {0x5812631a5cf5d3edULL, 0x14def9dea2f79cd6ULL, 0, 0x1000000000000000ULL};

Scalar with_words(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3) {
  Scalar s;
  uint64_t* w = ScalarWords::of(s);
  w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3;
  return s;
}

Scalar random_scalar() {
  std::array<uint8_t, 32> b;
  crypto_core_ristretto255_scalar_random(b.data());
  return *Scalar::from_canonical_bytes(b);
}

// Stored words at the edges of what a Scalar holds (0 .. l-1) and of the 52-bit limbs the
// lanes split them into, then random ones.
std::vector<Scalar> edge_and_random_scalars() {
  std::vector<Scalar> out = {
      with_words(0, 0, 0, 0),
      with_words(1, 0, 0, 0),
      with_words(2, 0, 0, 0),
      with_words(kL[0] - 1, kL[1], kL[2], kL[3]),              // l - 1
      with_words(kL[0] - 2, kL[1], kL[2], kL[3]),              // l - 2
      with_words(~0ULL, ~0ULL, ~0ULL, kL[3] - 1),              // 2^252 - 1
      with_words(0, 0, 0, kL[3]),                              // 2^252
      with_words((1ULL << 52) - 1, 0, 0, 0),                   // one full limb
      with_words(~0ULL, ~0ULL, ~0ULL, 0x0000ffffffffffffULL),  // four full limbs
      with_words(0, 1ULL << 40, 0, 0),                         // limb 2's lowest bit
      with_words(0x000fffffffffffffULL, 0xfff0000000000000ULL, ~0ULL, 0x0fffffffffffffffULL & (kL[3] - 1)),
      Scalar::one(),
      -Scalar::one(),
  };
  while (out.size() < 64) out.push_back(random_scalar());
  return out;
}

using TimesX8 = void (*)(const uint64_t[4], const uint64_t (*)[4], uint64_t (*)[4]);

// Every x against every y, each y in every lane position, lane by lane against x·y.
void check_times_x8(TimesX8 times) {
  const auto scalars = edge_and_random_scalars();
  for (const Scalar& x : scalars)
    for (size_t first = 0; first < scalars.size(); first += 3) {
      uint64_t in[8][4], out[8][4];
      Scalar ys[8];
      for (size_t k = 0; k < 8; ++k) {
        ys[k] = scalars[(first + k) % scalars.size()];
        for (int w = 0; w < 4; ++w) in[k][w] = ScalarWords::of(ys[k])[w];
      }
      times(ScalarWords::of(x), in, out);
      for (size_t k = 0; k < 8; ++k) {
        const Scalar expect = x * ys[k];
        const Scalar got = with_words(out[k][0], out[k][1], out[k][2], out[k][3]);
        REQUIRE(got == expect);
      }
    }
}

}  // namespace

TEST_CASE("eight-lane scalar products equal Scalar's, on edge and random words, in every lane") {
  check_times_x8(emulated_scalar_lanes::scalar_times_x8);
  if (bp::detail::cpu_executes_ifma())
    check_times_x8(bp::detail::ifma::scalar_times_x8);
  else
    MESSAGE("this CPU has no AVX-512 IFMA: the eight-lane scalar products ran on emulated instructions only");
}

TEST_CASE("multiply_each equals one product at a time, at every length, in place and not") {
  const auto scalars = edge_and_random_scalars();
  for (size_t length = 0; length <= 40; ++length) {
    const std::vector<Scalar> ys(scalars.begin(), scalars.begin() + static_cast<std::ptrdiff_t>(length));
    const Scalar x = scalars[(length * 7 + 3) % scalars.size()];
    std::vector<Scalar> expect(length), got(length);
    bp::detail::multiply_each_one_by_one(expect, x, ys);
    for (size_t k = 0; k < length; ++k) REQUIRE(expect[k] == x * ys[k]);
    bp::detail::multiply_each(got, x, ys);
    CHECK(got == expect);
    // In place, with the factor one of the elements it overwrites.
    std::vector<Scalar> in_place = ys;
    if (length > 0) {
      in_place[0] = x;
      std::vector<Scalar> expect_in_place = ys;
      expect_in_place[0] = x;
      for (auto& e : expect_in_place) e = x * e;
      bp::detail::multiply_each(in_place, in_place[0], in_place);
      CHECK(in_place == expect_in_place);
    }
  }
}
