// The multiscalar multiplications' side of bp/detail/op_tally.hpp: each algorithm's entry
// point opens an MsmTallyScope (a no-op unless a tally is installed) with the counts its
// plan implies.
#pragma once

#include <chrono>
#include <span>

#include "bp/detail/op_tally.hpp"
#include "bp/precomputed.hpp"
#include "bp/scalar.hpp"

namespace bp::detail {

// The operations of one call, by algorithm. Variable-time ones read the (public) digits;
// constant-time ones depend on the sizes alone.
void tally_straus_vartime(OpTally& t, std::span<const Scalar> fixed_scalars, std::span<const Scalar> scalars);
void tally_pippenger_vartime(OpTally& t, std::span<const Scalar> fixed_scalars, std::span<const Scalar> scalars);
void tally_shifted_vartime(OpTally& t, std::span<const Scalar> scalars);
enum class CtForm { Tables, Points, Combs };
void tally_ct(OpTally& t, CtForm form, size_t n);

// Adds the call's time to the tally when it ends.
class MsmTallyScope {
 public:
  template <class Count>
  explicit MsmTallyScope(Count&& count) : tally_(op_tally()) {
    if (tally_ == nullptr) return;
    count(*tally_);
    ++tally_->msm_calls;
    start_ = std::chrono::steady_clock::now();
  }
  ~MsmTallyScope() {
    if (tally_ != nullptr)
      tally_->msm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  MsmTallyScope(const MsmTallyScope&) = delete;
  MsmTallyScope& operator=(const MsmTallyScope&) = delete;

 private:
  OpTally* tally_;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace bp::detail
