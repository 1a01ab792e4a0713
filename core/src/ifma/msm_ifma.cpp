// Multiscalar multiplication on the AVX-512 IFMA backend: the shared four-lane algorithms
// (msm_four_lanes.inc) over the IFMA point formulas (ifma.hpp).
#include <sodium.h>

#include <vector>

#include "ifma/ifma.hpp"
#include "msm_kernels.hpp"
#include "pippenger_digits.hpp"
#include "scalar_recoding.hpp"
#include "straus_terms.hpp"

namespace bp::detail::ifma {

#define BP_LANES_FN BP_IFMA
#include "msm_four_lanes.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::ifma
