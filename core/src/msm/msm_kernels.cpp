#include <array>
#include <vector>

#include "msm/msm_kernels.hpp"

namespace bp::detail {

namespace {

// s·P by double-and-add on the portable formulas alone (no dispatch: this runs while the
// backend is being chosen).
RistrettoPoint double_and_add(const Scalar& s, const RistrettoPoint& p) {
  const Scalar::Bytes bits = s.to_bytes();
  RistrettoPoint acc = RistrettoPoint::identity();
  for (int i = 255; i >= 0; --i) {
    acc = acc + acc;
    if ((bits[i / 8] >> (i % 8)) & 1) acc = acc + p;
  }
  return acc;
}

}  // namespace

bool msm_kernels_agree_with_portable(const MsmKernels& kernels) {
  // Four points and full-size scalars (one of them l - 1, whose digits carry to the top).
  const RistrettoPoint B = RistrettoPoint::basepoint();
  const std::vector<RistrettoPoint> points = {B, B + B + B, double_and_add(Scalar::from_u64(0x9e3779b97f4a7c15), B),
                                              -(B + B)};
  std::vector<Scalar> scalars;
  for (uint8_t k = 0; k < 3; ++k) {
    std::array<uint8_t, 64> wide{};
    for (size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<uint8_t>(i * 37 + k * 101 + 1);
    scalars.push_back(Scalar::from_bytes_mod_order_wide(wide));
  }
  scalars.push_back(-Scalar::one());
  RistrettoPoint expected = RistrettoPoint::identity();
  for (size_t i = 0; i < points.size(); ++i) expected = expected + double_and_add(scalars[i], points[i]);
  const auto want = expected.compress();

  const auto naf = VartimeBaseTable::build(points);
  const auto shifted = ShiftedBaseTable::build(points);
  const auto ct = CtBaseTable::build(points);
  std::vector<std::unique_ptr<CtCombTable>> combs;
  std::vector<const CtCombTable*> comb_ptrs;
  for (const auto& p : points) comb_ptrs.push_back(combs.emplace_back(CtCombTable::build(p)).get());
  std::vector<const VartimeBaseTable*> naf_ptrs;
  std::vector<const ShiftedBaseTable*> shifted_ptrs;
  std::vector<const CtBaseTable*> ct_ptrs;
  for (size_t i = 0; i < points.size(); ++i) {
    naf_ptrs.push_back(&naf[i]);
    shifted_ptrs.push_back(&shifted[i]);
    ct_ptrs.push_back(&ct[i]);
  }
  const std::span<const Scalar> first(scalars.data(), 2), rest(scalars.data() + 2, 2);
  const std::span<const RistrettoPoint> rest_points(points.data() + 2, 2);
  const std::span<const VartimeBaseTable* const> first_tables(naf_ptrs.data(), 2);
  return kernels.straus_mixed_vartime(first, first_tables, rest, rest_points).compress() == want &&
         kernels.pippenger_mixed_vartime(first, first_tables, rest, rest_points).compress() == want &&
         kernels.shifted_buckets_vartime(scalars, shifted_ptrs).compress() == want &&
         kernels.ct_with_tables(scalars, ct_ptrs).compress() == want &&
         kernels.ct_with_points(scalars, points).compress() == want &&
         kernels.ct_with_combs(scalars, comb_ptrs).compress() == want;
}

}  // namespace bp::detail
