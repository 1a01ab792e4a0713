// Multiscalar multiplication on the mulx backend: the shared algorithms
// (msm_four_lanes.inc) over the radix 2^64 point formulas (edwards64.hpp). No target
// attribute is needed: the BMI2 and ADX instructions are in inline assembly, and the
// backend is only selected where the CPU has them.
#include <sodium.h>

#include <vector>

#include "msm/ct_tables.hpp"
#include "msm/msm_kernels.hpp"
#include "backend/mulx/edwards64.hpp"
#include "msm/pippenger_digits.hpp"
#include "arith/scalar_recoding.hpp"
#include "msm/straus_terms.hpp"

namespace bp::detail::mulx {

namespace {

// |digit|·P with the sign applied, from entries[k] = (k+1)·P: the portable constant-time
// selection (every entry read whatever the digit), then a change of radix.
Affine64 ct_select4(const AffineCached* entries, int8_t digit) {
  return to_cached4(ct_select(entries, kAffineCachedIdentity, digit));
}

}  // namespace

#define BP_LANES_FN
#include "msm/msm_four_lanes.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::mulx
