// Every field backend against the portable one: field operations on random and edge-case
// elements (and long chains of them, which is where a wrong limb bound shows), point
// formulas, every multiscalar multiplication, and whole proofs made from the same
// randomness, which must agree byte for byte. The IFMA backend runs on its instructions
// where the CPU has them and on emulated ones (ifma/v4_emulated.hpp) everywhere else, so
// its code is checked on every machine; an AVX2 backend this CPU cannot run is reported
// and skipped. The curve-level tests also run once per backend (see CMakeLists).
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>
#include <vector>

#include "backend/avx2/edwards4.hpp"
#include "backend/avx2/field_batch.hpp"
#include "backend/cpu_features.hpp"
#include "backend/ifma/ifma.hpp"
#include "backend/ifma/field_batch_ifma.hpp"
#include "backend/ifma/ifma_emulated.hpp"
#include "backend/ifma/v8_emulated.hpp"
#include "ifma_emulated_kernels.hpp"
#include "backend/mulx/edwards64.hpp"
#include "bp/backend.hpp"
#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "bp/range_proof.hpp"
#include "chacha_rng.hpp"
#include "range/prove_with_rng.hpp"
#include "random_values.hpp"
#include "vectors.hpp"

using namespace bp;
using namespace bp::detail;

namespace {

using bp::test::random_point;
using bp::test::random_scalar;

bool have_avx2() {
  if (backend_supported(Backend::avx2)) return true;
  MESSAGE("this CPU has no AVX2: the AVX2 backend is not tested here");
  return false;
}

bool have_mulx() {
  if (backend_supported(Backend::mulx)) return true;
  MESSAGE("this CPU has no BMI2 and ADX: the mulx backend is not tested here");
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
// operation unreduced, as in the point formulas (lanes_chain does the same four at once).
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

}  // namespace

// The four-lane helpers once for each vector backend: AVX2 (functions need the target) and
// the IFMA code over emulated instructions (plain functions).
namespace avx2_lanes {
using namespace bp::detail::avx2;
#define BP_TEST_LANES_FN BP_AVX2
#include "four_lane_helpers.inc"
#undef BP_TEST_LANES_FN
}  // namespace avx2_lanes

namespace ifma_lanes {
using namespace bp::detail::ifma_emulated;
#define BP_TEST_LANES_FN
#include "four_lane_helpers.inc"
#undef BP_TEST_LANES_FN
}  // namespace ifma_lanes

// The mulx backend under the four-lane helpers' names: an Fe4 is four separate elements.
namespace mulx_lanes {
using namespace bp::detail::mulx;
struct Fe4 {
  Fe64 lane[4];
};
Fe4 fe4_from_lanes(const Fe& a, const Fe& b, const Fe& c, const Fe& d) {
  return {{fe64_from_fe(a), fe64_from_fe(b), fe64_from_fe(c), fe64_from_fe(d)}};
}
void fe4_to_lanes(const Fe4& x, Fe out[4]) {
  for (int i = 0; i < 4; ++i) out[i] = fe_from_fe64(x.lane[i]);
}
template <class Op>
Fe4 each(const Fe4& x, const Fe4& y, Op op) {
  Fe4 r;
  for (int i = 0; i < 4; ++i) r.lane[i] = op(x.lane[i], y.lane[i]);
  return r;
}
Fe4 fe4_mul(const Fe4& x, const Fe4& y) { return each(x, y, fe64_mul); }
Fe4 fe4_sq(const Fe4& x) {
  return each(x, x, [](const Fe64& a, const Fe64&) { return fe64_sq(a); });
}
Fe4 fe4_add(const Fe4& x, const Fe4& y) { return each(x, y, fe64_add); }
Fe4 fe4_sub(const Fe4& x, const Fe4& y) { return each(x, y, fe64_sub); }
template <class Q>
Extended64 add(const Extended64& p, const Q& q) {
  Extended64 r;
  add_to(r, p, q);
  return r;
}
#define BP_TEST_LANES_FN
#include "four_lane_helpers.inc"
#undef BP_TEST_LANES_FN
}  // namespace mulx_lanes

// The eight-lane field code of decoding (ifma/field52x8.inc) over emulated instructions.
namespace ifma8_lanes {
using namespace bp::detail::ifma_emulated;
#define BP_LANES_INLINE inline
#define BP_LANES_FN
#include "backend/ifma/field52x8.inc"
#undef BP_LANES_FN
#undef BP_LANES_INLINE
}  // namespace ifma8_lanes

namespace {

// Checks a Lanes-way a^((p-5)/8) against fe_pow_p58 on the edge cases and random elements,
// every element in every lane position.
template <size_t Lanes, class Pow>
void check_pow_p58(Pow pow) {
  std::vector<Fe> inputs = edge_elements();
  while (inputs.size() < 5 * Lanes) inputs.push_back(random_fe());
  for (size_t shift = 0; shift < Lanes; ++shift)
    for (size_t first = 0; first + Lanes <= inputs.size(); first += Lanes) {
      Fe in[Lanes], out[Lanes];
      for (size_t lane = 0; lane < Lanes; ++lane) in[lane] = inputs[(first + lane + shift) % inputs.size()];
      pow(in, out);
      for (size_t lane = 0; lane < Lanes; ++lane) {
        CAPTURE(lane);
        CHECK(bytes_of(out[lane]) == bytes_of(fe_pow_p58(in[lane])));
      }
    }
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
  {
    // With IFMA kernels installed (emulated here when the CPU has none) the backend can
    // be chosen, and afterwards it is as before.
    const bool had_ifma = backend_supported(Backend::avx512ifma);
    {
      bp::test::IfmaAvailable ifma;
      BackendGuard inner;  // restores the backend before ifma uninstalls emulated kernels
      CHECK(backend_supported(Backend::avx512ifma));
      set_backend(Backend::avx512ifma);
      CHECK(active_backend() == Backend::avx512ifma);
    }
    CHECK(backend_supported(Backend::avx512ifma) == had_ifma);
  }
  MESSAGE("active backend at start: " << std::string(backend_name(guard.saved)));
}

namespace {

using LanesOp = void (*)(Op, const Fe[4], const Fe[4], Fe[4]);
using LanesChain = void (*)(const Fe[4], const Fe[4], int, Fe[4]);
using LanesPoints = PointResults (*)(const EdwardsPoint&, const EdwardsPoint&, const AffineCached&);

void check_field_ops(LanesOp lanes_op) {
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
      lanes_op(op, a, b, out);
      for (int lane = 0; lane < 4; ++lane) REQUIRE(bytes_of(out[lane]) == bytes_of(portable_op(op, a[lane], b[lane])));
    }
  }
  // Every edge element against every other, in every lane position.
  const auto edges = edge_elements();
  for (const Fe& x : edges)
    for (const Fe& y : edges) {
      const Fe a[4] = {x, y, x, y}, b[4] = {y, x, x, y};
      Fe out[4];
      lanes_op(Op::mul, a, b, out);
      for (int lane = 0; lane < 4; ++lane) CHECK(bytes_of(out[lane]) == bytes_of(fe_mul(a[lane], b[lane])));
    }
}

void check_chains(LanesChain lanes_chain) {
  const auto edges = edge_elements();
  for (int trial = 0; trial < 20; ++trial) {
    Fe a[4], b[4], out[4];
    for (int lane = 0; lane < 4; ++lane) {
      a[lane] = trial < 4 ? edges[(trial + lane) % edges.size()] : random_fe();
      b[lane] = trial < 4 ? edges[(trial * 3 + lane + 2) % edges.size()] : random_fe();
    }
    lanes_chain(a, b, 200, out);
    for (int lane = 0; lane < 4; ++lane)
      REQUIRE(bytes_of(out[lane]) == bytes_of(portable_chain(a[lane], b[lane], 200)));
  }
}

void check_point_formulas(LanesPoints lanes_points) {
  const auto identity = RistrettoPoint::identity();
  for (int trial = 0; trial < 200; ++trial) {
    const RistrettoPoint p = trial == 0 ? identity : random_point();
    const RistrettoPoint q = trial == 1 ? identity : trial == 2 ? p : random_point();
    const auto tables = VartimeBaseTable::build(std::span<const RistrettoPoint>(&q, 1));
    const PointResults r = lanes_points(p.edwards(), q.edwards(), tables[0].odd_multiple(0));
    const EdwardsPoint sum = (p + q).edwards(), difference = (p - q).edwards();
    CHECK(same_point(r.sum, sum));
    CHECK(same_point(r.difference, difference));
    CHECK(same_point(r.doubled, dbl(p.edwards())));
    CHECK(same_point(r.sum_affine, sum));
    CHECK(same_point(r.difference_affine, difference));
    CHECK(same_point(r.via_cached, sum));
  }
}

// The backends this machine runs, IFMA included while an IfmaAvailable is alive.
std::vector<Backend> backends_to_compare() {
  std::vector<Backend> out;
  for (Backend b : kBackends)
    if (backend_supported(b)) out.push_back(b);
  return out;
}

}  // namespace

namespace {

// The IFMA hardware's ct_select4 (512-bit blends and permutations) and the limb-by-limb
// one it replaces, on the same entries; a target-attributed caller, as the kernels are.
BP_IFMA void ifma_select_both_ways(const AffineCached* entries, int8_t digit, Fe vector_lanes[4],
                                   Fe limbwise_lanes[4]) {
  ifma::fe4_to_lanes(ifma::ct_select4(entries, digit).f, vector_lanes);
  ifma::fe4_to_lanes(ifma::ct_select4_limbwise(entries, digit).f, limbwise_lanes);
}

}  // namespace

TEST_CASE("the IFMA hardware's vector table selection equals the limb-by-limb one for every digit") {
  if (!backend_supported(Backend::avx512ifma)) {
    MESSAGE("this CPU has no AVX-512 IFMA: the hardware selection is checked where it has");
    return;
  }
  for (int trial = 0; trial < 8; ++trial) {
    const auto tables = CtBaseTable::build(std::vector<RistrettoPoint>{random_point()});
    for (int digit = -8; digit <= 8; ++digit) {
      Fe vector_lanes[4], limbwise_lanes[4];
      ifma_select_both_ways(&tables[0].multiple(0), static_cast<int8_t>(digit), vector_lanes, limbwise_lanes);
      for (int lane = 0; lane < 4; ++lane) {
        CAPTURE(digit);
        CAPTURE(lane);
        CHECK(bytes_of(vector_lanes[lane]) == bytes_of(limbwise_lanes[lane]));
      }
    }
  }
}

TEST_CASE("the kernels' self-check passes every vector backend and catches a wrong kernel") {
  CHECK(msm_kernels_agree_with_portable(ifma_emulated::kMsmKernels));
  if (have_avx2()) CHECK(msm_kernels_agree_with_portable(avx2::kMsmKernels));
  if (have_mulx()) CHECK(msm_kernels_agree_with_portable(mulx::kMsmKernels));
  MsmKernels broken = ifma_emulated::kMsmKernels;
  broken.ct_with_points = [](std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
    return ifma_emulated::kMsmKernels.ct_with_points(scalars.first(scalars.size() - 1),
                                                     points.first(points.size() - 1));
  };
  CHECK_FALSE(msm_kernels_agree_with_portable(broken));
}

TEST_CASE("AVX2 field operations equal the portable ones on random and edge-case elements") {
  if (have_avx2()) check_field_ops(avx2_lanes::lanes_op);
}

TEST_CASE("IFMA field operations (emulated instructions) equal the portable ones on random and edge-case elements") {
  check_field_ops(ifma_lanes::lanes_op);
}

TEST_CASE("decoding's vector exponentiations equal the portable one: IFMA 8 and 16 lanes, AVX2 4") {
  check_pow_p58<8>(ifma8_lanes::pow_p58_x8);
  check_pow_p58<16>(ifma8_lanes::pow_p58_x16);
  if (bp::detail::cpu_executes_ifma()) {
    check_pow_p58<8>(bp::detail::ifma::pow_p58_x8);
    check_pow_p58<16>(bp::detail::ifma::pow_p58_x16);
  } else {
    MESSAGE("this CPU has no AVX-512 IFMA: the eight-lane exponentiation ran on emulated instructions only");
  }
  if (have_avx2()) check_pow_p58<4>(bp::detail::avx2::pow_p58_x4);
}

TEST_CASE("long chains of unreduced AVX2 field operations stay equal to the portable ones") {
  if (have_avx2()) check_chains(avx2_lanes::lanes_chain);
}

TEST_CASE("long chains of IFMA field operations (emulated instructions) stay equal to the portable ones") {
  check_chains(ifma_lanes::lanes_chain);
}

TEST_CASE("AVX2 point addition, subtraction and doubling equal the portable formulas") {
  if (have_avx2()) check_point_formulas(avx2_lanes::lanes_points);
}

TEST_CASE("IFMA point addition, subtraction and doubling (emulated instructions) equal the portable formulas") {
  check_point_formulas(ifma_lanes::lanes_points);
}

TEST_CASE("mulx field operations equal the portable ones, on every kind of 256-bit value") {
  if (!have_mulx()) return;
  check_field_ops(mulx_lanes::lanes_op);
  check_chains(mulx_lanes::lanes_chain);
  // The radix 2^64 form holds any 256-bit value, so its own extremes too: 2^256 - 1, the
  // values just above p and 2p, and limbs that carry in the two final folds.
  using mulx::Fe64;
  const uint64_t ones = ~uint64_t{0};
  const std::vector<Fe64> extremes = {
      {{ones, ones, ones, ones}},
      {{ones - 18, ones, ones, ones >> 1}},  // p
      {{ones - 17, ones, ones, ones >> 1}},  // p + 1
      {{ones - 37, ones, ones, ones}},       // 2p
      {{ones - 36, ones, ones, ones}},       // 2p + 1, which reduces to 1 (one fold of 38)
      {{37, 0, 0, 0}},
      {{0, 0, 0, uint64_t{1} << 63}},
      {{ones, 0, ones, 0}},
      {{0, ones, 0, ones}},
  };
  for (const Fe64& x : extremes)
    for (const Fe64& y : extremes) {
      const Fe a = fe_from_fe64(x), b = fe_from_fe64(y);
      CHECK(bytes_of(fe_from_fe64(mulx::fe64_mul(x, y))) == bytes_of(fe_mul(a, b)));
      CHECK(bytes_of(fe_from_fe64(mulx::fe64_sq(x))) == bytes_of(fe_sq(a)));
      CHECK(bytes_of(fe_from_fe64(mulx::fe64_add(x, y))) == bytes_of(fe_add(a, b)));
      CHECK(bytes_of(fe_from_fe64(mulx::fe64_sub(x, y))) == bytes_of(fe_sub(a, b)));
    }
}

TEST_CASE("mulx point addition, subtraction and doubling equal the portable formulas") {
  if (have_mulx()) check_point_formulas(mulx_lanes::lanes_points);
}

TEST_CASE("every multiscalar multiplication gives the same point on every backend") {
  bp::test::IfmaAvailable ifma;
  BackendGuard guard;
  const auto backends = backends_to_compare();
  MESSAGE("comparing " << backends.size() << " backends"
                       << std::string(ifma.emulated() ? ", IFMA on emulated instructions" : ""));
  const auto& gens = bp::test::gens();
  const auto G = gens.G_aggregated(64, 16);
  const auto tables = gens.G_tables_aggregated(64, 16);
  const auto shifted = gens.G_shifted_tables_aggregated(64, 16);
  const auto ct_tables = gens.G_ct_tables(0, 64);
  for (size_t n : {0, 1, 2, 3, 17, 64, 200, 800, 1024}) {
    CAPTURE(n);
    const auto scalars = scalars_for(n);
    std::vector<RistrettoPoint> points;
    for (size_t i = 0; i < n; ++i) points.push_back(i % 5 == 0 ? RistrettoPoint::identity() : random_point());
    const size_t nf = std::min(n, G.size()) / 2;  // half the scalars go with fixed tables
    const std::span<const Scalar> fixed_scalars(scalars.data(), nf), other_scalars(scalars.data() + nf, n - nf);
    const std::span<const VartimeBaseTable* const> fixed_tables(tables.data(), nf);
    const std::span<const ShiftedBaseTable* const> shifted_span(shifted.data(), nf);
    const std::span<const RistrettoPoint> other_points(points.data() + nf, n - nf);
    const std::span<const Scalar> ct_scalars(scalars.data(), std::min<size_t>(n, 64));
    const std::span<const CtBaseTable* const> ct_table_span(ct_tables.data(), ct_scalars.size());

    std::vector<std::vector<CompressedRistretto>> results(backends.size());
    for (size_t b = 0; b < backends.size(); ++b) {
      CAPTURE(std::string(backend_name(backends[b])));
      set_backend(backends[b]);
      auto& out = results[b];
      out.push_back(multiscalar_mul_vartime(scalars, points).compress());
      out.push_back(detail::straus_vartime(scalars, points).compress());
      out.push_back(detail::pippenger_vartime(scalars, points).compress());
      out.push_back(multiscalar_mul_vartime(fixed_scalars, fixed_tables, other_scalars, other_points).compress());
      out.push_back(
          detail::pippenger_mixed_vartime(fixed_scalars, fixed_tables, other_scalars, other_points).compress());
      out.push_back(multiscalar_mul_vartime(fixed_scalars, shifted_span, other_scalars, other_points).compress());
      if (n <= 200) out.push_back(multiscalar_mul(scalars, points).compress());
      out.push_back(multiscalar_mul(ct_scalars, ct_table_span).compress());
    }
    for (size_t b = 1; b < backends.size(); ++b) {
      CAPTURE(std::string(backend_name(backends[b])));
      CHECK(results[0] == results[b]);
      // And the variable-time result is the sum it should be (checked on the portable
      // side by test_msm against libsodium): the constant-time one agrees with it.
      if (n <= 200) CHECK(results[b][0] == results[b][6]);
      CHECK(results[b][3] == results[b][5]);  // NAF tables and shifted tables, same sum
    }
  }
}

TEST_CASE("proofs made from the same randomness are byte-identical on every backend, and verify on each") {
  bp::test::IfmaAvailable ifma;
  BackendGuard guard;
  const auto backends = backends_to_compare();
  const auto doc = bp::test::load_vectors("rangeproofs.json");
  int compared = 0;
  for (const auto& tc : doc["cases"]) {
    CAPTURE(tc["id"].get<std::string>());
    const size_t n = tc["n"], m = tc["m"];
    std::vector<uint64_t> values;
    for (const auto& v : tc["values"]) values.push_back(std::stoull(v.get<std::string>()));
    std::vector<std::string> proofs(backends.size());
    for (size_t b = 0; b < backends.size(); ++b) {
      CAPTURE(std::string(backend_name(backends[b])));
      set_backend(backends[b]);
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
    for (const auto& proof : proofs) CHECK(proof == tc["proof"].get<std::string>());
    ++compared;
  }
  CHECK(compared == 9);
}
