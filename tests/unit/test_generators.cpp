// PedersenGens and BulletproofGens against pedersen_gens.json and bulletproof_gens.json.
#include <doctest/doctest.h>

#include "bp/detail/edwards.hpp"
#include "bp/generators.hpp"
#include "bp/hex.hpp"
#include "vectors.hpp"

using bp::test::hex_scalar;

TEST_CASE("PedersenGens: B, B_blinding and every commitment example") {
  const auto doc = bp::test::load_vectors("pedersen_gens.json");
  const bp::PedersenGens pc;
  CHECK(bp::to_hex(pc.B.compress().bytes) == doc["B"].get<std::string>());
  CHECK(bp::to_hex(pc.B_blinding.compress().bytes) == doc["B_blinding"].get<std::string>());
  int n = 0;
  for (const auto& ex : doc["commit_examples"]) {
    const bp::Scalar v = bp::Scalar::from_u64(std::stoull(ex["value"].get<std::string>()));
    CHECK(bp::to_hex(pc.commit(v, hex_scalar(ex["blinding"])).compress().bytes) == ex["commitment"].get<std::string>());
    ++n;
  }
  CHECK(n >= 4);
}

TEST_CASE("BulletproofGens(64, 8): every G and H of every party") {
  const auto doc = bp::test::load_vectors("bulletproof_gens.json");
  const size_t capacity = doc["gens_capacity"], parties = doc["party_capacity"];
  const bp::BulletproofGens gens(capacity, parties);
  size_t checked = 0;
  for (const auto& party : doc["parties"]) {
    const size_t j = party["party"];
    for (size_t i = 0; i < capacity; ++i) {
      CHECK(bp::to_hex(gens.G(j, capacity)[i].compress().bytes) == party["G"][i].get<std::string>());
      CHECK(bp::to_hex(gens.H(j, capacity)[i].compress().bytes) == party["H"][i].get<std::string>());
      checked += 2;
    }
  }
  CHECK(checked == 2 * capacity * parties);
  // The aggregated vector is the parties' prefixes, concatenated.
  const auto g = gens.G_aggregated(8, 3);
  REQUIRE(g.size() == 24);
  CHECK(g[8] == gens.G(1, 8)[0]);
  CHECK(g[23] == gens.G(2, 8)[7]);
}

TEST_CASE("BulletproofGens: each kind of table is built party by party, on that party's first use") {
  const bp::BulletproofGens gens(64, 16);
  CHECK(gens.table_bytes() == 0);
  // A party proving at position 5 builds its own constant-time tables, nothing else.
  const auto ct = gens.G_ct_tables(5, 64);
  REQUIRE(ct.size() == 64);
  CHECK(gens.table_bytes() == 2 * 64 * sizeof(bp::CtBaseTable));
  // Each table is of its own generator: entry 0 is the point itself (affine), entry 1 twice it.
  const auto affine_y = [](const bp::detail::AffineCached& e) {
    return bp::detail::fe_mul(bp::detail::fe_add(e.YplusX, e.YminusX), bp::detail::fe_invert(bp::detail::kFeTwo));
  };
  const auto& point = gens.G(5, 64)[17].edwards();
  CHECK(bp::detail::fe_eq_mask(affine_y(ct[17]->multiple(0)),
                               bp::detail::fe_mul(point.Y, bp::detail::fe_invert(point.Z))) != 0);
  const auto H_ct = gens.H_ct_tables(5, 3);
  CHECK(gens.table_bytes() == 2 * 64 * sizeof(bp::CtBaseTable));  // built with G's
  REQUIRE(H_ct.size() == 3);
  // The variable-time tables of two parties.
  const auto vt = gens.G_tables_aggregated(64, 2);
  REQUIRE(vt.size() == 128);
  CHECK(gens.table_bytes() == 2 * 64 * sizeof(bp::CtBaseTable) + 2 * 2 * 64 * sizeof(bp::VartimeBaseTable));
}
