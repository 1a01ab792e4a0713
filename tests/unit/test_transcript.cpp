// Keccak, SHA3-512, SHAKE256 and Merlin transcripts against transcript.json and known answers.
#include <doctest/doctest.h>

#include <string>

#include "bp/hex.hpp"
#include "bp/keccak.hpp"
#include "bp/transcript.hpp"
#include "bp/transcript_protocol.hpp"
#include "vectors.hpp"

using bp::test::hex_bytes;

namespace {
std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
}  // namespace

TEST_CASE("SHA3-512 and SHAKE256 known answers") {
  CHECK(bp::to_hex(bp::sha3_512({})) ==
        "a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a6"
        "15b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26");
  CHECK(bp::to_hex(bp::sha3_512(bytes_of("abc"))) ==
        "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
        "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0");
  bp::Shake256 xof;
  std::array<uint8_t, 32> out;
  xof.squeeze(out);
  CHECK(bp::to_hex(out) == "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f");
  // Long inputs cross the rate boundary (72 bytes for SHA3-512, 136 for SHAKE256).
  const std::string million(1000, 'a');
  bp::Shake256 split, whole;
  whole.update(bytes_of(million));
  split.update(bytes_of(million.substr(0, 137)));
  split.update(bytes_of(million.substr(137)));
  std::array<uint8_t, 300> a, b;
  whole.squeeze(a);
  split.squeeze({b.data(), 100});
  split.squeeze({b.data() + 100, 200});
  CHECK(a == b);
}

TEST_CASE("SHA3-512 of B and the SHAKE256 generator chain match the reference vectors") {
  const auto pg = bp::test::load_vectors("pedersen_gens.json");
  CHECK(bp::to_hex(bp::sha3_512(hex_bytes(pg["B"]))) == pg["sha3_512_of_B"].get<std::string>());
  const auto gens = bp::test::load_vectors("bulletproof_gens.json");
  const auto& example = gens["intermediate_example"];
  bp::Shake256 xof;
  xof.update(hex_bytes(example["shake_input_hex"]));
  for (const auto& out : example["first_outputs"]) {
    std::array<uint8_t, 64> block;
    xof.squeeze(block);
    CHECK(bp::to_hex(block) == out["shake256_64_bytes"].get<std::string>());
  }
}

TEST_CASE("every transcript case of transcript.json replays exactly") {
  const auto doc = bp::test::load_vectors("transcript.json");
  int cases = 0;
  for (const auto& tc : doc["cases"]) {
    CAPTURE(tc["id"].get<std::string>());
    std::optional<bp::Transcript> t;
    for (const auto& op : tc["ops"]) {
      const std::string kind = op["op"];
      if (kind == "new") {
        const auto label = hex_bytes(op["label_hex"]);
        t.emplace(std::string_view(reinterpret_cast<const char*>(label.data()), label.size()));
      } else if (kind == "append_message") {
        t->append_message(op["label"].get<std::string>(), hex_bytes(op["message_hex"]));
      } else if (kind == "append_u64") {
        t->append_u64(op["label"].get<std::string>(), std::stoull(op["value"].get<std::string>()));
      } else if (kind == "challenge_bytes") {
        std::vector<uint8_t> out(op["length"].get<size_t>());
        t->challenge_bytes(op["label"].get<std::string>(), out);
        CHECK(bp::to_hex(out) == op["output_hex"].get<std::string>());
      } else if (kind == "challenge_scalar") {
        const bp::Scalar s = bp::challenge_scalar(*t, op["label"].get<std::string>());
        CHECK(bp::to_hex(s.to_bytes()) == op["scalar_hex"].get<std::string>());
      } else if (kind == "validate_and_append_point") {
        CHECK_FALSE(
            bp::validate_and_append_point(*t, op["label"].get<std::string>(), bp::test::hex_point(op["point_hex"])));
      } else {
        FAIL("unknown op " << kind);
      }
    }
    ++cases;
  }
  CHECK(cases >= 8);
}
