// The multiscalar multiplications on pairs of points (msm/msm_pairs.inc): Straus and the
// constant-time forms with two accumulators in the two halves of 512-bit registers,
// Pippenger and the shifted tables' bucket pass with their terms two at a time and their
// buckets summed as two runs. Checked against the portable backend on every
// machine (emulated instructions) and on the CPU's own where it has IFMA, at sizes that
// leave an odd term out at nearly every bit (one point), none (many), across Pippenger's
// window widths, with fixed tables and without, identities and zero scalars mixed in.
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>
#include <memory>
#include <vector>

#include "backend/cpu_features.hpp"
#include "bp/backend.hpp"
#include "bp/msm.hpp"
#include "bp/precomputed.hpp"
#include "ifma_emulated_kernels.hpp"
#include "msm/msm_kernels.hpp"
#include "random_values.hpp"
#include "vectors.hpp"

using namespace bp;
using namespace bp::detail;

namespace {

using bp::test::random_point;
using bp::test::random_scalar;

// The kernels' Straus, Pippenger and shifted buckets against the portable backend's, fixed tables for
// half the terms (where there are enough tables) or none.
void check_msm(const MsmKernels& kernels) {
  const Backend saved = active_backend();
  set_backend(Backend::portable);
  const auto& gens = bp::test::gens();
  const auto tables = gens.G_tables_aggregated(64, 16);
  const auto shifted = gens.G_shifted_tables_aggregated(64, 16);
  for (size_t n : {0, 1, 2, 3, 4, 5, 16, 17, 64, 147, 300, 1100, 2100}) {
    CAPTURE(n);
    std::vector<Scalar> scalars;
    std::vector<RistrettoPoint> points;
    for (size_t i = 0; i < n; ++i) {
      scalars.push_back(i % 9 == 4 ? Scalar::zero() : i % 9 == 5 ? -Scalar::one() : random_scalar());
      points.push_back(i % 11 == 3 ? RistrettoPoint::identity() : random_point());
    }
    for (size_t nf : {size_t{0}, std::min(n, tables.size()) / 2}) {
      CAPTURE(nf);
      const std::span<const Scalar> fixed(scalars.data(), nf), other(scalars.data() + nf, n - nf);
      const std::span<const VartimeBaseTable* const> fixed_tables(tables.data(), nf);
      const std::span<const RistrettoPoint> other_points(points.data() + nf, n - nf);
      const auto expect = multiscalar_mul_vartime(fixed, fixed_tables, other, other_points).compress();
      CHECK(kernels.straus_mixed_vartime(fixed, fixed_tables, other, other_points).compress() == expect);
      CHECK(kernels.pippenger_mixed_vartime(fixed, fixed_tables, other, other_points).compress() == expect);
      // The shifted tables' bucket pass: the fixed part alone.
      const std::span<const ShiftedBaseTable* const> shifted_tables(shifted.data(), nf);
      CHECK(kernels.shifted_buckets_vartime(fixed, shifted_tables).compress() ==
            multiscalar_mul_vartime(fixed, fixed_tables, {}, {}).compress());
    }
  }
  set_backend(saved);
}

// The constant-time forms (points, tables, combs) against the portable variable-time sum,
// at odd and even counts.
void check_ct(const MsmKernels& kernels) {
  const Backend saved = active_backend();
  set_backend(Backend::portable);
  std::vector<RistrettoPoint> points;
  std::vector<Scalar> scalars;
  for (size_t i = 0; i < 9; ++i) {
    points.push_back(i == 4 ? RistrettoPoint::identity() : random_point());
    scalars.push_back(i == 2 ? Scalar::zero() : i == 6 ? -Scalar::one() : random_scalar());
  }
  const auto tables = CtBaseTable::build(points);
  std::vector<std::unique_ptr<CtCombTable>> comb_storage;
  std::vector<const CtBaseTable*> table_ptrs;
  std::vector<const CtCombTable*> combs;
  for (size_t i = 0; i < points.size(); ++i) {
    table_ptrs.push_back(&tables[i]);
    comb_storage.push_back(CtCombTable::build(points[i]));
    combs.push_back(comb_storage.back().get());
  }
  for (size_t n : {0, 1, 2, 3, 8, 9}) {
    CAPTURE(n);
    const std::span<const Scalar> s(scalars.data(), n);
    const std::span<const RistrettoPoint> p(points.data(), n);
    const auto expect = multiscalar_mul_vartime(s, p).compress();
    CHECK(kernels.ct_with_points(s, p).compress() == expect);
    CHECK(kernels.ct_with_tables(s, std::span<const CtBaseTable* const>(table_ptrs.data(), n)).compress() == expect);
    CHECK(kernels.ct_with_combs(s, std::span<const CtCombTable* const>(combs.data(), n)).compress() == expect);
  }
  set_backend(saved);
}

}  // namespace

TEST_CASE("every multiscalar multiplication on pairs of points gives the portable sum (emulated; CPU with IFMA)") {
  check_msm(ifma_emulated::kMsmKernelsPaired);
  check_ct(ifma_emulated::kMsmKernelsPaired);
  CHECK(msm_kernels_agree_with_portable(ifma_emulated::kMsmKernelsPaired));
  if (cpu_executes_ifma()) {
    check_msm(ifma::kMsmKernelsPaired);
    check_ct(ifma::kMsmKernelsPaired);
    check_msm(ifma::kMsmKernels);
    check_ct(ifma::kMsmKernels);
    MESSAGE("this CPU " << (avx512_pairs_pay() ? "takes" : "does not take") << " the pairs by default");
  } else {
    MESSAGE("this CPU has no AVX-512 IFMA: the pairs ran on emulated instructions only");
  }
}

TEST_CASE("the IFMA backend takes the pairs exactly where avx512_pairs_pay says") {
  if (!cpu_executes_ifma()) return;
  const MsmKernels* chosen = ifma_msm_kernels();
  REQUIRE(chosen != nullptr);
  CHECK(chosen == (avx512_pairs_pay() ? &ifma::kMsmKernelsPaired : &ifma::kMsmKernels));
}
