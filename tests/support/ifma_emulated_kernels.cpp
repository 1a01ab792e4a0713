// The IFMA backend's multiscalar multiplications compiled over emulated instructions
// (core/src/backend/ifma/ifma_emulated.hpp), the Straus loop on pairs of points included
// (ifma_x2_emulated.hpp). Tests install them with use_ifma_msm_kernels when
// the CPU has no IFMA, so the IFMA code is compared with the other backends everywhere.
#include "ifma_emulated_kernels.hpp"

#include <sodium.h>

#include <vector>

#include "backend/ifma/ifma_emulated.hpp"
#include "backend/ifma/ifma_x2_emulated.hpp"
#include "msm/ct_tables.hpp"
#include "msm/pippenger_digits.hpp"
#include "arith/scalar_recoding.hpp"
#include "msm/straus_terms.hpp"

namespace bp::detail::ifma_emulated {

#define BP_LANES_FN
#include "msm/msm_four_lanes.inc"
namespace pair = ifma_x2_emulated;
#include "msm/msm_pairs.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::ifma_emulated
