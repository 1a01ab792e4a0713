// The IFMA backend's multiscalar multiplications compiled over emulated instructions
// (core/src/ifma/ifma_emulated.hpp). Tests install them with use_ifma_msm_kernels when
// the CPU has no IFMA, so the IFMA code is compared with the other backends everywhere.
#include "ifma_emulated_kernels.hpp"

#include <sodium.h>

#include <vector>

#include "ifma/ifma_emulated.hpp"
#include "pippenger_digits.hpp"
#include "scalar_recoding.hpp"
#include "straus_terms.hpp"

namespace bp::detail::ifma_emulated {

#define BP_LANES_FN
#include "msm_four_lanes.inc"
#undef BP_LANES_FN

}  // namespace bp::detail::ifma_emulated
