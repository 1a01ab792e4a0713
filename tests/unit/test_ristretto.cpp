// ristretto255 encoding, decoding and hash-to-group against libsodium and RFC 9496.
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>

#include "bp/hex.hpp"
#include "bp/ristretto.hpp"
#include "vectors.hpp"

using bp::CompressedRistretto;
using bp::RistrettoPoint;
using bp::Scalar;

namespace {

CompressedRistretto random_encoding() {
  CompressedRistretto c;
  crypto_core_ristretto255_random(c.bytes.data());
  return c;
}

}  // namespace

TEST_CASE("basepoint multiples encode as in RFC 9496 appendix A.1") {
  const char* expected[] = {
      "0000000000000000000000000000000000000000000000000000000000000000",
      "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
      "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
      "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
  };
  RistrettoPoint p;
  for (const char* e : expected) {
    CHECK(bp::to_hex(p.compress().bytes) == e);
    p += RistrettoPoint::basepoint();
  }
}

TEST_CASE("decode and encode round trip on libsodium's random points, and arithmetic agrees") {
  for (int i = 0; i < 1000; ++i) {
    const CompressedRistretto a = random_encoding(), b = random_encoding();
    const auto pa = RistrettoPoint::decompress(a), pb = RistrettoPoint::decompress(b);
    REQUIRE(pa.has_value());
    REQUIRE(pb.has_value());
    CHECK(pa->compress() == a);
    CompressedRistretto sum, diff;
    crypto_core_ristretto255_add(sum.bytes.data(), a.bytes.data(), b.bytes.data());
    crypto_core_ristretto255_sub(diff.bytes.data(), a.bytes.data(), b.bytes.data());
    CHECK((*pa + *pb).compress() == sum);
    CHECK((*pa - *pb).compress() == diff);
    if (i % 10 == 0) {
      std::array<uint8_t, 32> s;
      crypto_core_ristretto255_scalar_random(s.data());
      CompressedRistretto prod;
      REQUIRE(crypto_scalarmult_ristretto255(prod.bytes.data(), s.data(), a.bytes.data()) == 0);
      CHECK((*pa * *Scalar::from_canonical_bytes(s)).compress() == prod);
    }
  }
}

TEST_CASE("decoding agrees with libsodium on random byte strings, and rejects a set top bit") {
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    CompressedRistretto c;
    randombytes_buf(c.bytes.data(), 32);
    if (i % 4 == 0) c.bytes[0] &= 0xfe;  // more non-negative candidates
    const bool ours = RistrettoPoint::decompress(c).has_value();
    if (c.bytes[31] & 0x80) {
      // RFC 9496 requires rejecting it; libsodium 1.0.18 masks the bit instead, so it is
      // not a reference here.
      CHECK_FALSE(ours);
      c.bytes[31] &= 0x7f;
    }
    const bool theirs = crypto_core_ristretto255_is_valid_point(c.bytes.data()) == 1;
    CHECK(RistrettoPoint::decompress(c).has_value() == theirs);
    accepted += theirs;
  }
  CHECK(accepted > 1000);
}

// RFC 9496 A.2.
const char* const kBadEncodings[] = {
    // non-canonical field encodings
    "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    // negative field elements
    "0100000000000000000000000000000000000000000000000000000000000000",
    "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
    // non-square x²
    "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
    "4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
    // negative xy
    "3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
    "a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
    // s = -1, which causes y = 0
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
};

TEST_CASE("RFC 9496 A.2: invalid encodings are rejected") {
  for (const char* h : kBadEncodings) {
    CAPTURE(h);
    const CompressedRistretto c = bp::test::hex_point(h);
    if ((c.bytes[31] & 0x80) == 0) CHECK(crypto_core_ristretto255_is_valid_point(c.bytes.data()) == 0);
    CHECK_FALSE(RistrettoPoint::decompress(c).has_value());
  }
  CHECK(RistrettoPoint::decompress(CompressedRistretto{})->is_identity());
}

TEST_CASE("hash-to-group agrees with crypto_core_ristretto255_from_hash") {
  for (int i = 0; i < 2000; ++i) {
    std::array<uint8_t, 64> h;
    randombytes_buf(h.data(), h.size());
    CompressedRistretto expect;
    crypto_core_ristretto255_from_hash(expect.bytes.data(), h.data());
    CHECK(RistrettoPoint::from_uniform_bytes(h).compress() == expect);
  }
}

TEST_CASE("group equality ignores the Edwards representative") {
  const RistrettoPoint b = RistrettoPoint::basepoint();
  // Adding a 4-torsion point changes the Edwards point but not the ristretto element.
  const bp::detail::EdwardsPoint torsion{bp::detail::kSqrtM1, bp::detail::kFeZero, bp::detail::kFeOne,
                                         bp::detail::kFeZero};
  // (sqrt(-1), 0) is on -x²+y²=1+dx²y²: -(-1) + 0 = 1. It has order 4.
  const RistrettoPoint moved(b.edwards() + torsion);
  CHECK(moved == b);
  CHECK(moved.compress() == b.compress());
  CHECK_FALSE(b == b + b);
}

TEST_CASE("batch decoding gives exactly what decoding one at a time gives, at every length") {
  // Valid points, the identity, every invalid kind of A.2 and random strings, interleaved so
  // that every lane of a four-wide group sees good and bad encodings.
  std::vector<CompressedRistretto> in;
  for (int i = 0; i < 60; ++i) {
    CompressedRistretto c;
    if (i % 3 == 0) {
      crypto_core_ristretto255_random(c.bytes.data());
    } else if (i % 3 == 1) {
      c = bp::test::hex_point(kBadEncodings[i % std::size(kBadEncodings)]);
    } else {
      randombytes_buf(c.bytes.data(), 32);
      c.bytes[0] &= 0xfe;
    }
    in.push_back(i == 6 ? CompressedRistretto{} : c);
  }
  for (size_t length : {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 60}) {
    CAPTURE(length);
    std::vector<std::optional<RistrettoPoint>> out(length);
    RistrettoPoint::decompress_batch(std::span(in).first(length), out);
    for (size_t i = 0; i < length; ++i) {
      const auto one = RistrettoPoint::decompress(in[i]);
      REQUIRE(out[i].has_value() == one.has_value());
      if (one) CHECK(out[i]->compress() == in[i]);
    }
  }
}

TEST_CASE("batch encoding gives exactly what encoding one at a time gives, at every length") {
  // Random points, the identity, and other Edwards representatives of the same elements
  // (a 4-torsion point added: encoding must still give the element's one encoding), so every
  // lane of an eight- or sixteen-wide group sees each kind.
  const bp::detail::EdwardsPoint torsion{bp::detail::kSqrtM1, bp::detail::kFeZero, bp::detail::kFeOne,
                                         bp::detail::kFeZero};
  std::vector<RistrettoPoint> in;
  for (int i = 0; i < 40; ++i) {
    CompressedRistretto c;
    crypto_core_ristretto255_random(c.bytes.data());
    const RistrettoPoint p = *RistrettoPoint::decompress(c);
    if (i % 5 == 3)
      in.push_back(RistrettoPoint(p.edwards() + torsion));
    else if (i % 5 == 4)
      in.push_back(-p);
    else
      in.push_back(i == 7 ? RistrettoPoint::identity() : p);
  }
  for (size_t length : {0, 1, 2, 3, 7, 8, 9, 10, 16, 17, 25, 40}) {
    CAPTURE(length);
    std::vector<CompressedRistretto> out(length);
    RistrettoPoint::compress_batch(std::span(in).first(length), out);
    for (size_t i = 0; i < length; ++i) CHECK(out[i] == in[i].compress());
  }
  // The shorter of the two spans wins; nothing past it is written.
  std::vector<CompressedRistretto> short_out(3);
  RistrettoPoint::compress_batch(in, short_out);
  for (size_t i = 0; i < short_out.size(); ++i) CHECK(short_out[i] == in[i].compress());
}
