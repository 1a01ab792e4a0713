// Constraint-system proofs against the reference's vectors (tests/vectors/r1cs.json,
// VECTORS.md "r1cs.json"): every proof there verifies here, every negative case is refused
// with the reference's kind of error, and given the same witness and outside randomness our
// prover writes each proof byte for byte. Then the gadgets' properties on random inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>

#include "bp/r1cs.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/r1cs_gadgets.hpp"
#include "chacha_rng.hpp"
#include "vectors.hpp"

using namespace bp;
using bp::test::hex_bytes;
using bp::test::hex_point;
using bp::test::hex_scalar;
using json = nlohmann::json;

namespace {

const BulletproofGens& gens_of(size_t capacity) {
  static std::map<size_t, std::unique_ptr<BulletproofGens>> cache;
  auto& slot = cache[capacity];
  if (!slot) slot = std::make_unique<BulletproofGens>(capacity, 1);
  return *slot;
}

uint64_t param(const json& params, const char* name) {
  const auto& p = params.at(name);
  return p.is_string() ? std::stoull(p.get<std::string>()) : p.get<uint64_t>();
}

std::span<const uint8_t> text(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// The vector's transcript before the R1CS part: the label and the shuffle's prefix.
Transcript transcript_of(const json& v, const std::string& label) {
  Transcript t(label);
  if (v.contains("transcript_prefix"))
    for (const auto& op : v["transcript_prefix"]) {
      if (op.at("op") == "append_message")
        t.append_message(op.at("label").get<std::string>(), text(op.at("message").get<std::string>()));
      else
        t.append_u64(op.at("label").get<std::string>(), op.at("value").get<uint64_t>());
    }
  else if (v.at("gadget") == "shuffle")
    gadgets::shuffle_domain_sep(t, param(v.at("params"), "k"));
  return t;
}

// The vector's gadget over committed variables V_0.. (values given to the prover only).
Result<Ok, R1CSError> build(RandomizableConstraintSystem& cs, const json& v, const std::vector<Variable>& V,
                            const std::optional<std::vector<uint64_t>>& values) {
  const std::string gadget = v.at("gadget");
  const json& params = v.at("params");
  const auto value = [&](size_t j) { return values ? std::optional<uint64_t>((*values)[j]) : std::nullopt; };
  if (gadget == "example") {
    gadgets::example(cs, V[0], V[1], V[2], V[3], V[4], Scalar::from_u64(param(params, "c2")));
    return Ok{};
  }
  if (gadget == "shuffle") {
    const size_t k = param(params, "k");
    return gadgets::shuffle(cs, {V.begin(), V.begin() + k}, {V.begin() + k, V.begin() + 2 * k});
  }
  if (gadget == "range") return gadgets::range(cs, V[0], value(0), param(params, "n"));
  REQUIRE(gadget == "combined");
  const size_t k1 = param(params, "k1"), k2 = param(params, "k2");
  const auto at = [&](size_t from, size_t count) {
    return std::vector<Variable>(V.begin() + static_cast<std::ptrdiff_t>(from),
                                 V.begin() + static_cast<std::ptrdiff_t>(from + count));
  };
  if (auto s = gadgets::shuffle(cs, at(0, k1), at(k1, k1)); !s) return s;
  if (auto s = gadgets::shuffle(cs, at(2 * k1, k2), at(2 * k1 + k2, k2)); !s) return s;
  if (auto s = gadgets::range(cs, V[k1], value(k1), param(params, "n1")); !s) return s;
  return gadgets::range(cs, V[2 * k1 + 2 * k2], value(2 * k1 + 2 * k2), param(params, "n2"));
}

Result<Ok, R1CSError> verify_vector(const json& v, const std::vector<uint8_t>& proof_bytes, size_t capacity) {
  auto proof = R1CSProof::from_bytes(proof_bytes);
  if (!proof) return proof.error();
  Transcript t = transcript_of(v, v.at("transcript_label"));
  R1CSVerifier verifier(t);
  std::vector<Variable> V;
  for (const auto& c : v.at("commitments")) V.push_back(verifier.commit(hex_point(c)));
  if (auto built = build(verifier, v, V, std::nullopt); !built) return built.error();
  return std::move(verifier).verify(*proof, test::pc(), gens_of(capacity));
}

// Our prover on the vector's witness and outside randomness.
std::vector<uint8_t> prove_vector(const json& v) {
  Transcript t = transcript_of(v, v.at("transcript_label"));
  R1CSProver prover(test::pc(), t);
  std::vector<Variable> V;
  std::vector<uint64_t> values;
  for (size_t j = 0; j < v.at("values").size(); ++j) {
    const auto [commitment, var] = prover.commit(hex_scalar(v["values_hex"][j]), hex_scalar(v["blindings"][j]));
    CHECK(test::hex(commitment.bytes) == v["commitments"][j].get<std::string>());
    V.push_back(var);
    const std::string decimal = v["values"][j];
    values.push_back(decimal.size() <= 20 ? std::stoull(decimal) : 0);
  }
  REQUIRE(build(prover, v, V, values).ok());
  std::array<uint8_t, 32> seed{};
  const auto seed_bytes = hex_bytes(v["rng"]["prove_rng_seed_hex"]);
  std::copy(seed_bytes.begin(), seed_bytes.end(), seed.begin());
  test::ChaCha20Rng rng(seed);
  auto proof = std::move(prover).prove_with_rng(gens_of(v["bp_gens"]["gens_capacity"]), rng);
  REQUIRE_MESSAGE(proof.ok(), describe(proof.error()));
  return proof->to_bytes();
}

R1CSErrorKind kind_named(const std::string& name) {
  if (name == "FormatError") return R1CSErrorKind::FormatError;
  if (name == "InvalidGeneratorsLength") return R1CSErrorKind::InvalidGeneratorsLength;
  return R1CSErrorKind::VerificationError;
}

}  // namespace

TEST_CASE("every R1CS vector: our prover writes the same bytes, and the proof verifies") {
  const json vectors = test::load_vectors("r1cs.json");
  REQUIRE(vectors["vectors"].size() == 14);
  for (const auto& v : vectors["vectors"]) {
    CAPTURE(v["id"].get<std::string>());
    const auto expected = hex_bytes(v["proof"]);
    const auto ours = prove_vector(v);
    CHECK(test::hex(ours) == v["proof"].get<std::string>());
    auto verified = verify_vector(v, expected, v["bp_gens"]["gens_capacity"]);
    CHECK_MESSAGE(verified.ok(), (verified.ok() ? "" : describe(verified.error())));
    // Parsing and writing again gives the bytes back.
    auto parsed = R1CSProof::from_bytes(expected);
    REQUIRE(parsed.ok());
    CHECK(parsed->to_bytes() == expected);
    CHECK(parsed->serialized_size() == expected.size());
  }
}

TEST_CASE("every negative R1CS vector is refused, with the reference's kind of error") {
  const json vectors = test::load_vectors("r1cs.json");
  REQUIRE(vectors["negative_vectors"].size() == 98);
  for (const auto& v : vectors["negative_vectors"]) {
    CAPTURE(v["id"].get<std::string>());
    auto verified = verify_vector(v, hex_bytes(v["proof"]), v["gens_capacity"]);
    REQUIRE_FALSE(verified.ok());
    CHECK(verified.error().kind == kind_named(v["reference_error"]));
    // An honest proof of a false statement: the prover writes it all the same.
    if (v["kind"] == "unsatisfied_witness") CHECK(test::hex(prove_vector(v)) == v["proof"].get<std::string>());
  }
}

namespace {

using Gadget = std::function<Result<Ok, R1CSError>(RandomizableConstraintSystem&, const std::vector<Variable>&,
                                                   const std::optional<std::vector<uint64_t>>&)>;

// A statement over commitments to `values`, proved with random blindings and verified with
// the same gadget: the prover's refusal, or the verifier's verdict.
Result<Ok, R1CSError> prove_then_verify(const std::vector<uint64_t>& values, const Gadget& gadget,
                                        size_t capacity = 128) {
  SystemRandom rng;
  Transcript t("gadget test");
  R1CSProver prover(test::pc(), t);
  std::vector<Variable> vars;
  std::vector<CompressedRistretto> commitments;
  for (uint64_t v : values) {
    auto [V, var] = prover.commit(Scalar::from_u64(v), Scalar::random(rng));
    commitments.push_back(V);
    vars.push_back(var);
  }
  if (auto built = gadget(prover, vars, values); !built) return built.error();
  auto proof = std::move(prover).prove(gens_of(capacity));
  if (!proof) return proof.error();
  // Through bytes, as a verifier gets it.
  auto parsed = R1CSProof::from_bytes(proof->to_bytes());
  REQUIRE(parsed.ok());
  Transcript u("gadget test");
  R1CSVerifier verifier(u);
  std::vector<Variable> seen;
  for (const auto& V : commitments) seen.push_back(verifier.commit(V));
  if (auto built = gadget(verifier, seen, std::nullopt); !built) return built.error();
  return std::move(verifier).verify(*parsed, test::pc(), gens_of(capacity));
}

std::optional<uint64_t> at(const std::optional<std::vector<uint64_t>>& values, size_t j) {
  return values ? std::optional<uint64_t>((*values)[j]) : std::nullopt;
}

}  // namespace

TEST_CASE("range: every n from 1 to 64 at its edges; a value at 2^n cannot be proved") {
  for (size_t n : {1, 8, 16, 32, 63, 64}) {
    CAPTURE(n);
    const Gadget range = [n](auto& cs, const auto& V, const auto& values) {
      return gadgets::range(cs, V[0], at(values, 0), n);
    };
    const uint64_t top = n == 64 ? UINT64_MAX : (uint64_t{1} << n) - 1;
    CHECK(prove_then_verify({0}, range).ok());
    CHECK(prove_then_verify({top}, range).ok());
    if (n < 64) CHECK_FALSE(prove_then_verify({top + 1}, range).ok());
  }
}

TEST_CASE("shuffle: a permutation verifies, anything else fails") {
  for (size_t k : {1, 2, 3, 5, 8}) {
    CAPTURE(k);
    const Gadget shuffle = [k](auto& cs, const auto& V, const auto&) {
      return gadgets::shuffle(cs, {V.begin(), V.begin() + static_cast<std::ptrdiff_t>(k)},
                              {V.begin() + static_cast<std::ptrdiff_t>(k), V.end()});
    };
    std::vector<uint64_t> values;
    for (size_t i = 0; i < k; ++i) values.push_back(1000 + 7 * i);
    std::vector<uint64_t> permuted = values;
    std::rotate(permuted.begin(), permuted.begin() + 1, permuted.end());
    std::vector<uint64_t> statement = values;
    statement.insert(statement.end(), permuted.begin(), permuted.end());
    CHECK(prove_then_verify(statement, shuffle).ok());
    statement.back() += 1;  // not a permutation
    CHECK_FALSE(prove_then_verify(statement, shuffle).ok());
  }
}

TEST_CASE("member_of: a value of the set verifies, any other fails") {
  const std::vector<Scalar> denominations = {Scalar::from_u64(1), Scalar::from_u64(5), Scalar::from_u64(10),
                                             Scalar::from_u64(50), Scalar::from_u64(100)};
  for (size_t size : {1, 2, 5}) {
    CAPTURE(size);
    const Gadget member = [&, size](auto& cs, const auto& V, const auto&) {
      return gadgets::member_of(cs, V[0], std::span(denominations).first(size));
    };
    CHECK(prove_then_verify({1}, member).ok());
    if (size == 5) CHECK(prove_then_verify({100}, member).ok());
    CHECK_FALSE(prove_then_verify({20}, member).ok());
  }
  Transcript t("x");
  R1CSVerifier v(t);
  CHECK(gadgets::member_of(v, v.commit(CompressedRistretto{}), {}).error().kind == R1CSErrorKind::GadgetError);
}

TEST_CASE("sum_equals: amounts that add up verify, others fail") {
  const Gadget sum = [](auto& cs, const auto& V, const auto&) {
    gadgets::sum_equals(cs, std::span(V).first(3), V[3]);
    return Result<Ok, R1CSError>(Ok{});
  };
  CHECK(prove_then_verify({30, 12, 0, 42}, sum).ok());
  CHECK_FALSE(prove_then_verify({30, 12, 1, 42}, sum).ok());
}

TEST_CASE("greater_or_equal: a ≥ b verifies; the prover refuses a < b, and a forged one fails") {
  const Gadget geq = [](auto& cs, const auto& V, const auto& values) {
    return gadgets::greater_or_equal(cs, V[0], at(values, 0), V[1], at(values, 1), 32);
  };
  CHECK(prove_then_verify({7, 7}, geq).ok());
  CHECK(prove_then_verify({4000000000, 3}, geq).ok());
  auto refused = prove_then_verify({3, 7}, geq);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == R1CSErrorKind::GadgetError);
  // A prover that skips the check (range over a − b as if it were 0) makes a proof that fails.
  const Gadget forged = [](auto& cs, const auto& V, const auto& values) {
    return gadgets::range(cs, LinearCombination(V[0]) - V[1], values ? std::optional<uint64_t>(0) : std::nullopt, 32);
  };
  CHECK_FALSE(prove_then_verify({3, 7}, forged).ok());
}

TEST_CASE("the prover refuses what it cannot build, and bytes that are not a proof are refused") {
  Transcript t("x");
  R1CSProver prover(test::pc(), t);
  CHECK(prover.allocate(std::nullopt).error().kind == R1CSErrorKind::MissingAssignment);
  CHECK(prover.allocate_multiplier(std::nullopt).error().kind == R1CSErrorKind::MissingAssignment);
  // A variable the system does not have.
  prover.constrain(LinearCombination(Variable{Variable::Kind::Committed, 3}));
  auto proof = std::move(prover).prove(gens_of(8));
  REQUIRE_FALSE(proof.ok());
  CHECK(proof.error().kind == R1CSErrorKind::GadgetError);
  for (const std::vector<uint8_t>& bad : {std::vector<uint8_t>{}, std::vector<uint8_t>(1 + 32 * 13, 0),
                                          std::vector<uint8_t>(32 * 13, 0), std::vector<uint8_t>(1 + 32 * 12, 0)}) {
    auto bytes = bad;
    if (!bytes.empty() && bytes.size() % 32 == 1) bytes[0] = 2;  // no such version
    CHECK(R1CSProof::from_bytes(bytes).error().kind == R1CSErrorKind::FormatError);
  }
}

TEST_CASE("the second phase sees challenges drawn after the first phase's commitments") {
  // allocate pairs values into multipliers as the reference does: left, then right, then a new one.
  Transcript t("alloc");
  R1CSProver prover(test::pc(), t);
  auto a = prover.allocate(Scalar::from_u64(3));
  auto b = prover.allocate(Scalar::from_u64(4));
  auto c = prover.allocate(Scalar::from_u64(5));
  REQUIRE((a && b && c));
  CHECK(*a == Variable{Variable::Kind::MultiplierLeft, 0});
  CHECK(*b == Variable{Variable::Kind::MultiplierRight, 0});
  CHECK(*c == Variable{Variable::Kind::MultiplierLeft, 1});
  prover.constrain(LinearCombination(Variable{Variable::Kind::MultiplierOutput, 0}) - Scalar::from_u64(12));
  Scalar seen;
  prover.specify_randomized_constraints([&](RandomizedConstraintSystem& cs) {
    seen = cs.challenge_scalar("late");
    cs.constrain(LinearCombination(*c) * seen - seen * Scalar::from_u64(5));
    return Result<Ok, R1CSError>(Ok{});
  });
  const R1CSMetrics before = prover.metrics();
  CHECK(before.multipliers == 2);
  CHECK(before.constraints == 1);
  auto proof = std::move(prover).prove(gens_of(8));
  REQUIRE(proof.ok());
  CHECK_FALSE(seen.is_zero());
}

TEST_CASE("gadget lists: the canonical text, the counts, and refusals that name the item") {
  auto list = GadgetList::parse("shuffle:3;range:32;example;member:1|5|10;sum:2;geq:16");
  REQUIRE(list.ok());
  CHECK(list->text() == "shuffle:3;range:32;example:9;member:1|5|10;sum:2;geq:16");
  CHECK(list->commitments() == 6 + 1 + 5 + 1 + 3 + 2);
  CHECK(list->multipliers() == 4 + 32 + 1 + 2 + 0 + 16);
  CHECK(list->generators_capacity() == 64);
  CHECK(GadgetList::parse("sum:1")->generators_capacity() == 1);
  for (const char* bad : {"", "range", "range:65", "shuffle:0", "shuffle:4097", "geq:0", "member:", "member:1||2",
                          "example:x", "range:8;", "ranges:8", "range:-1", "sum:99999999999999999999"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(GadgetList::parse(bad).ok());
  }
  CHECK(GadgetList::parse("range:8;bogus").error().find("bogus") != std::string::npos);
}

TEST_CASE("a one-item gadget list is exactly the reference's single statement") {
  const json vectors = test::load_vectors("r1cs.json");
  for (const auto& v : vectors["vectors"]) {
    const std::string gadget = v["gadget"];
    if (gadget == "combined") continue;
    CAPTURE(v["id"].get<std::string>());
    const std::string item = gadget == "example"   ? "example:" + v["params"]["c2"].get<std::string>()
                             : gadget == "shuffle" ? "shuffle:" + std::to_string(v["params"]["k"].get<int>())
                                                   : "range:" + std::to_string(v["params"]["n"].get<int>());
    const auto list = GadgetList::parse(item);
    REQUIRE(list.ok());
    Transcript t(v["transcript_label"].get<std::string>());
    list->append_prefixes(t);
    R1CSVerifier verifier(t);
    std::vector<Variable> V;
    for (const auto& c : v["commitments"]) V.push_back(verifier.commit(hex_point(c)));
    REQUIRE(list->build(verifier, V, std::nullopt).ok());
    auto proof = R1CSProof::from_bytes(hex_bytes(v["proof"]));
    REQUIRE(proof.ok());
    CHECK(std::move(verifier).verify(*proof, test::pc(), gens_of(v["bp_gens"]["gens_capacity"])).ok());
  }
}

TEST_CASE("a list of every gadget proves and verifies, and fails when one item is false") {
  const auto list = GadgetList::parse("shuffle:2;range:8;example:2;member:1|5|10;sum:2;geq:16");
  REQUIRE(list.ok());
  const Gadget all = [&](auto& cs, const auto& V, const auto& values) {
    return list->build(cs, V, values ? std::optional<std::span<const uint64_t>>(*values) : std::nullopt);
  };
  const std::vector<uint64_t> honest = {4, 9, 9, 4, 255, 1, 2, 3, 4, 19, 10, 30, 12, 42, 900, 899};
  CHECK(prove_then_verify(honest, all, list->generators_capacity()).ok());
  auto lying = honest;
  lying[9] = 20;  // (1 + 2)(3 + 4) ≠ 20 + 2
  CHECK_FALSE(prove_then_verify(lying, all, list->generators_capacity()).ok());
}

TEST_CASE("batch verification: proofs of different statements in one pass, the false ones named") {
  const std::vector<std::string> lists = {"range:64", "shuffle:8", "shuffle:2;range:8;sum:1", "member:3|4", "range:16"};
  const BulletproofGens& gens = gens_of(64);
  std::vector<R1CSEquation> equations;
  for (size_t k = 0; k < lists.size(); ++k) {
    const auto list = GadgetList::parse(lists[k]);
    REQUIRE(list.ok());
    std::vector<uint64_t> values;
    for (const auto& item : list->items()) {
      if (item.kind == GadgetItem::Kind::Shuffle) {
        for (uint64_t i = 0; i < item.parameter; ++i) values.push_back(10 + i);
        for (uint64_t i = item.parameter; i-- > 0;) values.push_back(10 + i);
      } else if (item.kind == GadgetItem::Kind::Sum) {
        values.insert(values.end(), {5, 5});
      } else if (item.kind == GadgetItem::Kind::Member) {
        values.push_back(4);
      } else {
        values.push_back(k == 4 ? 70000 : 200);  // the last: over 2^16, a false statement
      }
    }
    SystemRandom rng;
    std::vector<Scalar> blindings;
    for (size_t j = 0; j < values.size(); ++j) blindings.push_back(Scalar::random(rng));
    auto proved = prove_gadget_list(*list, "batch " + std::to_string(k), values, blindings);
    REQUIRE(proved.ok());
    // The third is checked under another label: its equation does not hold.
    Transcript t(k == 2 ? "another label" : "batch " + std::to_string(k));
    list->append_prefixes(t);
    R1CSVerifier verifier(t);
    std::vector<Variable> vars;
    for (const auto& V : proved->commitments) vars.push_back(verifier.commit(V));
    REQUIRE(list->build(verifier, vars, std::nullopt).ok());
    auto eq = std::move(verifier).equation(proved->proof, gens);
    REQUIRE(eq.ok());
    equations.push_back(std::move(*eq));
  }
  CHECK(verify_r1cs_batch(std::span(equations).first(2), test::pc(), gens).ok());
  CHECK(verify_r1cs_batch(std::span(equations).subspan(3, 1), test::pc(), gens).ok());
  CHECK(verify_r1cs_batch(equations, test::pc(), gens).failed == std::vector<size_t>{2, 4});
  CHECK(verify_r1cs_batch({}, test::pc(), gens).ok());
}
