// Multiscalar multiplication on the AVX-512 IFMA backend: the shared four-lane algorithms
// (msm_four_lanes.inc) over the IFMA point formulas (ifma.hpp).
#include <sodium.h>

#include <vector>

#include "backend/ifma/ifma.hpp"
#include "msm/ct_tables.hpp"
#include "msm/msm_kernels.hpp"
#include "msm/pippenger_digits.hpp"
#include "arith/scalar_recoding.hpp"
#include "msm/straus_terms.hpp"

namespace bp::detail::ifma {

#define BP_LANES_FN BP_IFMA
#include "msm/msm_four_lanes.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::ifma
