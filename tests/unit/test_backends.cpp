// Every field backend against the portable one: field operations on random and edge-case
// elements (and long chains of them, which is where a wrong limb bound shows), point
// formulas, every multiscalar multiplication, and whole proofs made from the same
// randomness, which must agree byte for byte. A backend this CPU cannot run is reported
// and skipped; the whole test suite also runs once per supported backend (see CMakeLists).
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>
#include <vector>

#include "avx2/edwards4.hpp"
#include "bp/backend.hpp"
#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/range_proof.hpp"
#include "chacha_rng.hpp"
#include "prove_with_rng.hpp"
#include "vectors.hpp"

using namespace bp;
using namespace bp::detail;

namespace {

bool have_avx2() {
  if (backend_supported(Backend::avx2)) return true;
  MESSAGE("this CPU has no AVX2: the AVX2 backend is not tested here");
  return false;
}

// Restores the backend a test found, whatever happens inside it.
struct BackendGuard {
  Backend saved = active_backend();
  ~BackendGuard() { set_backend(saved); }
};

std::array<uint8_t, 32> bytes_of(const Fe& a) {
  std::array<uint8_t, 32> out;
  fe_to_bytes(out.data(), a);
  return out;
}

Fe random_fe() {
  uint8_t b[32];
  randombytes_buf(b, sizeof b);
  return fe_from_bytes(b);
}

// Edge cases: 0, 1, p-1, p (loads unreduced), 2^255-1 (every limb full), 2^51 boundaries.
std::vector<Fe> edge_elements() {
  std::vector<Fe> out = {kFeZero, kFeOne, fe_neg(kFeOne)};
  uint8_t b[32];
  std::fill(b, b + 32, 0xff);
  b[31] = 0x7f;
  out.push_back(fe_from_bytes(b));  // 2^255 - 1
  b[0] = 0xed;
  out.push_back(fe_from_bytes(b));  // p itself
  out.push_back(Fe{{kLow51, 0, kLow51, 0, kLow51}});
  out.push_back(Fe{{0, kLow51, 0, kLow51, 0}});
  out.push_back(Fe{{uint64_t{1} << 50, uint64_t{1} << 50, uint64_t{1} << 50, uint64_t{1} << 50, uint64_t{1} << 50}});
  return out;
}

enum class Op { mul, sq, add, sub };

BP_AVX2 void avx2_op(Op op, const Fe a[4], const Fe b[4], Fe out[4]) {
  using namespace bp::detail::avx2;
  const Fe4 x = fe4_from_lanes(a[0], a[1], a[2], a[3]);
  const Fe4 y = fe4_from_lanes(b[0], b[1], b[2], b[3]);
  switch (op) {
    case Op::mul: fe4_to_lanes(fe4_mul(x, y), out); break;
    case Op::sq: fe4_to_lanes(fe4_sq(x), out); break;
    case Op::add: fe4_to_lanes(fe4_add(x, y), out); break;
    case Op::sub: fe4_to_lanes(fe4_sub(x, y), out); break;
  }
}

Fe portable_op(Op op, const Fe& a, const Fe& b) {
  switch (op) {
    case Op::mul: return fe_mul(a, b);
    case Op::sq: return fe_sq(a);
    case Op::add: return fe_add(a, b);
    case Op::sub: return fe_sub(a, b);
  }
  return kFeZero;
}

// x <- (x + y)·(y - x), then x², y <- x·y, many times over: every output feeds the next
// operation unreduced, as in the point formulas.
BP_AVX2 void avx2_chain(const Fe a[4], const Fe b[4], int rounds, Fe out[4]) {
  using namespace bp::detail::avx2;
  Fe4 x = fe4_from_lanes(a[0], a[1], a[2], a[3]);
  Fe4 y = fe4_from_lanes(b[0], b[1], b[2], b[3]);
  for (int i = 0; i < rounds; ++i) {
    x = fe4_sq(fe4_mul(fe4_add(x, y), fe4_sub(y, x)));
    y = fe4_mul(x, fe4_add(y, y));
  }
  fe4_to_lanes(fe4_add(x, y), out);
}

Fe portable_chain(Fe x, Fe y, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    x = fe_sq(fe_mul(fe_add(x, y), fe_sub(y, x)));
    y = fe_mul(x, fe_add(y, y));
  }
  return fe_add(x, y);
}

// Projective equality of two extended points (X1·Z2 = X2·Z1 and Y1·Z2 = Y2·Z1), plus the
// extended coordinate's invariant X·Y = Z·T on the first.
bool same_point(const EdwardsPoint& p, const EdwardsPoint& q) {
  return bytes_of(fe_mul(p.X, q.Z)) == bytes_of(fe_mul(q.X, p.Z)) &&
         bytes_of(fe_mul(p.Y, q.Z)) == bytes_of(fe_mul(q.Y, p.Z)) &&
         bytes_of(fe_mul(p.X, p.Y)) == bytes_of(fe_mul(p.Z, p.T));
}

struct PointResults {
  EdwardsPoint sum, difference, doubled, sum_affine, difference_affine, via_cached;
};

BP_AVX2 PointResults avx2_points(const EdwardsPoint& p, const EdwardsPoint& q, const AffineCached& q_affine) {
  using namespace bp::detail::avx2;
  const Extended4 p4 = to_extended4(p);
  const Cached4 q4 = to_cached4(to_cached(q));
  return {to_edwards(add(p4, q4)),
          to_edwards(add(p4, neg(q4))),
          to_edwards(dbl(p4)),
          to_edwards(add(p4, to_cached4(q_affine))),
          to_edwards(add(p4, to_cached4_negated(q_affine))),
          to_edwards(add(p4, to_cached4(to_extended4(q))))};
}

RistrettoPoint random_point() {
  CompressedRistretto c;
  crypto_core_ristretto255_random(c.bytes.data());
  return *RistrettoPoint::decompress(c);
}

Scalar random_scalar() {
  std::array<uint8_t, 32> s;
  crypto_core_ristretto255_scalar_random(s.data());
  return *Scalar::from_canonical_bytes(s);
}

// Random scalars with zero, one, minus one and small values mixed in.
std::vector<Scalar> scalars_for(size_t n) {
  std::vector<Scalar> out;
  for (size_t i = 0; i < n; ++i) {
    Scalar s = random_scalar();
    if (i % 7 == 1) s = Scalar::zero();
    if (i % 7 == 2) s = Scalar::one();
    if (i % 7 == 3) s = -Scalar::one();
    if (i % 7 == 4) s = Scalar::from_u64(i * 1000003);
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("the backend is chosen from the CPU and BP_BACKEND, and switches on request") {
  CHECK(backend_supported(Backend::portable));
  CHECK(backend_from_name("avx2") == Backend::avx2);
  CHECK_FALSE(backend_from_name("sse9").has_value());
  BackendGuard guard;
  set_backend(Backend::portable);
  CHECK(active_backend() == Backend::portable);
  if (!backend_supported(Backend::avx512ifma)) CHECK_THROWS_AS(set_backend(Backend::avx512ifma), std::invalid_argument);
  MESSAGE("active backend at start: " << std::string(backend_name(guard.saved)));
}

TEST_CASE("AVX2 field operations equal the portable ones on random and edge-case elements") {
  if (!have_avx2()) return;
  std::vector<Fe> inputs = edge_elements();
  for (int i = 0; i < 400; ++i) inputs.push_back(random_fe());
  for (Op op : {Op::mul, Op::sq, Op::add, Op::sub}) {
    CAPTURE(static_cast<int>(op));
    for (size_t i = 0; i + 4 <= inputs.size(); ++i) {
      Fe a[4], b[4], out[4];
      for (int lane = 0; lane < 4; ++lane) {
        a[lane] = inputs[(i + lane) % inputs.size()];
        b[lane] = inputs[(i * 7 + lane * 3 + 1) % inputs.size()];
      }
      avx2_op(op, a, b, out);
      for (int lane = 0; lane < 4; ++lane) REQUIRE(bytes_of(out[lane]) == bytes_of(portable_op(op, a[lane], b[lane])));
    }
  }
  // Every edge element against every other, in every lane position.
  const auto edges = edge_elements();
  for (const Fe& x : edges)
    for (const Fe& y : edges) {
      const Fe a[4] = {x, y, x, y}, b[4] = {y, x, x, y};
      Fe out[4];
      avx2_op(Op::mul, a, b, out);
      for (int lane = 0; lane < 4; ++lane) CHECK(bytes_of(out[lane]) == bytes_of(fe_mul(a[lane], b[lane])));
    }
}

TEST_CASE("long chains of unreduced AVX2 field operations stay equal to the portable ones") {
  if (!have_avx2()) return;
  const auto edges = edge_elements();
  for (int trial = 0; trial < 20; ++trial) {
    Fe a[4], b[4], out[4];
    for (int lane = 0; lane < 4; ++lane) {
      a[lane] = trial < 4 ? edges[(trial + lane) % edges.size()] : random_fe();
      b[lane] = trial < 4 ? edges[(trial * 3 + lane + 2) % edges.size()] : random_fe();
    }
    avx2_chain(a, b, 200, out);
    for (int lane = 0; lane < 4; ++lane) REQUIRE(bytes_of(out[lane]) == bytes_of(portable_chain(a[lane], b[lane], 200)));
  }
}

TEST_CASE("AVX2 point addition, subtraction and doubling equal the portable formulas") {
  if (!have_avx2()) return;
  const auto identity = RistrettoPoint::identity();
  for (int trial = 0; trial < 200; ++trial) {
    const RistrettoPoint p = trial == 0 ? identity : random_point();
    const RistrettoPoint q = trial == 1 ? identity : trial == 2 ? p : random_point();
    const auto tables = VartimeBaseTable::build(std::span<const RistrettoPoint>(&q, 1));
    const PointResults r = avx2_points(p.edwards(), q.edwards(), tables[0].odd_multiple(0));
    const EdwardsPoint sum = (p + q).edwards(), difference = (p - q).edwards();
    CHECK(same_point(r.sum, sum));
    CHECK(same_point(r.difference, difference));
    CHECK(same_point(r.doubled, dbl(p.edwards())));
    CHECK(same_point(r.sum_affine, sum));
    CHECK(same_point(r.difference_affine, difference));
    CHECK(same_point(r.via_cached, sum));
  }
}

TEST_CASE("every multiscalar multiplication gives the same point on every backend") {
  if (!have_avx2()) return;
  BackendGuard guard;
  const auto& gens = bp::test::gens();
  const auto G = gens.G_aggregated(64, 16);
  const auto tables = gens.G_tables_aggregated(64, 16);
  const auto ct_tables = gens.G_ct_tables(0, 64);
  for (size_t n : {0, 1, 2, 3, 17, 64, 200, 800, 1024}) {
    CAPTURE(n);
    const auto scalars = scalars_for(n);
    std::vector<RistrettoPoint> points;
    for (size_t i = 0; i < n; ++i) points.push_back(i % 5 == 0 ? RistrettoPoint::identity() : random_point());
    const size_t nf = std::min(n, G.size()) / 2;  // half the scalars go with fixed tables
    const std::span<const Scalar> fixed_scalars(scalars.data(), nf), other_scalars(scalars.data() + nf, n - nf);
    const std::span<const VartimeBaseTable* const> fixed_tables(tables.data(), nf);
    const std::span<const RistrettoPoint> other_points(points.data() + nf, n - nf);
    const std::span<const Scalar> ct_scalars(scalars.data(), std::min<size_t>(n, 64));
    const std::span<const CtBaseTable* const> ct_table_span(ct_tables.data(), ct_scalars.size());

    std::vector<CompressedRistretto> results[2];
    for (int b = 0; b < 2; ++b) {
      set_backend(b == 0 ? Backend::portable : Backend::avx2);
      auto& out = results[b];
      out.push_back(multiscalar_mul_vartime(scalars, points).compress());
      out.push_back(detail::straus_vartime(scalars, points).compress());
      out.push_back(detail::pippenger_vartime(scalars, points).compress());
      out.push_back(multiscalar_mul_vartime(fixed_scalars, fixed_tables, other_scalars, other_points).compress());
      out.push_back(detail::pippenger_vartime_mixed(fixed_scalars, fixed_tables, other_scalars, other_points).compress());
      if (n <= 200) out.push_back(multiscalar_mul(scalars, points).compress());
      out.push_back(multiscalar_mul(ct_scalars, ct_table_span).compress());
    }
    CHECK(results[0] == results[1]);
    // And the variable-time result is the sum it should be (checked on the portable side
    // by test_msm against libsodium): the constant-time one agrees with it.
    if (n <= 200) CHECK(results[1][0] == results[1][5]);
  }
}

TEST_CASE("proofs made from the same randomness are byte-identical on every backend, and verify on each") {
  if (!have_avx2()) return;
  BackendGuard guard;
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  int compared = 0;
  for (const auto& tc : doc["cases"]) {
    CAPTURE(tc["id"].get<std::string>());
    const size_t n = tc["n"], m = tc["m"];
    std::vector<uint64_t> values;
    for (const auto& v : tc["values"]) values.push_back(std::stoull(v.get<std::string>()));
    std::string proofs[2];
    for (int b = 0; b < 2; ++b) {
      set_backend(b == 0 ? Backend::portable : Backend::avx2);
      const auto seed_bytes = bp::test::hex_bytes(tc["rng_seed_hex"]);
      std::array<uint8_t, 32> seed{};
      std::copy(seed_bytes.begin(), seed_bytes.end(), seed.begin());
      bp::test::ChaCha20Rng rng(seed);
      std::vector<Scalar> blindings;
      for (size_t j = 0; j < m; ++j) blindings.push_back(Scalar::random(rng));
      Transcript t(tc["transcript_label"].get<std::string>());
      auto proved = detail::prove_multiple_with_rng(bp::test::gens(), bp::test::pc(), t, values, blindings, n, rng);
      REQUIRE(proved.ok());
      proofs[b] = bp::test::hex(proved->proof.to_bytes());
      Transcript tv(tc["transcript_label"].get<std::string>());
      CHECK(proved->proof.verify_multiple(bp::test::gens(), bp::test::pc(), tv, proved->commitments, n).ok());
    }
    CHECK(proofs[0] == proofs[1]);
    CHECK(proofs[1] == tc["proof"].get<std::string>());
    ++compared;
  }
  CHECK(compared == 9);
}
