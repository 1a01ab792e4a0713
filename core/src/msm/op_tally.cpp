// Operation counts of each multiscalar multiplication algorithm (op_tally.hpp). They
// follow the portable code's loops, whose digit plans every backend shares: a table of odd
// multiples for each point without one, one addition per nonzero digit, the doublings of
// the longest digit string, and two additions per bucket to sum the buckets.
#include "msm/op_tally.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "arith/scalar_recoding.hpp"
#include "msm/pippenger_digits.hpp"
#include "msm/straus_terms.hpp"

namespace bp::detail {

namespace {

thread_local OpTally* current = nullptr;

}  // namespace

OpTally* install_op_tally(OpTally* tally) { return std::exchange(current, tally); }
OpTally* op_tally() { return current; }

void tally_straus_vartime(OpTally& t, std::span<const Scalar> fixed_scalars, std::span<const Scalar> scalars) {
  NafDigit digits[256];
  int top = -1;
  const auto count = [&](const Scalar& s, int width) {
    const int n = to_naf_vartime(digits, s, width);
    t.additions += static_cast<uint64_t>(n);
    for (int k = 0; k < n; ++k) top = std::max(top, static_cast<int>(digits[k].pos));
  };
  for (const Scalar& s : fixed_scalars) count(s, VartimeBaseTable::kWidth);
  for (const Scalar& s : scalars) count(s, kDynamicNafWidth);
  t.additions += 7 * scalars.size();  // 3P..15P from 2P
  t.doublings += scalars.size() + static_cast<uint64_t>(top + 1);
  t.msm_points += fixed_scalars.size() + scalars.size();
}

void tally_pippenger_vartime(OpTally& t, std::span<const Scalar> fixed_scalars, std::span<const Scalar> scalars) {
  PippengerDigits plan;
  pippenger_digits(fixed_scalars, scalars, plan);
  const size_t n = fixed_scalars.size() + scalars.size();
  for (size_t i = 0; i < n; ++i)
    for (int w = 0; w < plan.count; ++w) t.additions += plan.at(i, w) != 0;
  t.additions += static_cast<uint64_t>(plan.count) * (2 * plan.buckets + 1);
  t.doublings += static_cast<uint64_t>(std::max(plan.count - 1, 0) * plan.c);
  t.msm_points += n;
}

void tally_shifted_vartime(OpTally& t, std::span<const Scalar> scalars) {
  std::vector<int32_t> digits;
  shifted_digits(scalars, digits);
  t.additions += static_cast<uint64_t>(std::count_if(digits.begin(), digits.end(), [](int32_t d) { return d != 0; }));
  t.additions += 2 * kShiftedBuckets;
  t.msm_points += scalars.size();
}

void tally_ct(OpTally& t, CtForm form, size_t n) {
  // 64 radix-16 digits a scalar, each one addition whatever its value.
  t.additions += 64 * n;
  if (form != CtForm::Combs) t.doublings += 63 * 4;
  if (form == CtForm::Points) {
    t.additions += 6 * n;  // 3P..8P from P and 2P
    t.doublings += n;
  }
  t.msm_points += n;
}

}  // namespace bp::detail
