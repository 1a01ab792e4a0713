// Multiscalar multiplication on the AVX-512 IFMA backend: the shared four-lane algorithms
// (msm_four_lanes.inc) over the IFMA point formulas (ifma.hpp), and the Straus loop on
// pairs of points (msm_pairs.inc over ifma_x2.hpp) for CPUs with full-width 512-bit units.
#include <sodium.h>

#include <vector>

#include "backend/ifma/ifma.hpp"
#include "backend/ifma/ifma_x2.hpp"
#include "msm/ct_tables.hpp"
#include "msm/msm_kernels.hpp"
#include "msm/pippenger_digits.hpp"
#include "arith/scalar_recoding.hpp"
#include "msm/straus_terms.hpp"

namespace bp::detail::ifma {

#define BP_LANES_FN BP_IFMA
#include "msm/msm_four_lanes.inc"
namespace pair = ifma_x2;
#include "msm/msm_pairs.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::ifma
