#include "backend/ifma/scalar_lanes_ifma.hpp"

#include "backend/ifma/v8_ifma.hpp"

namespace bp::detail::ifma {

#define BP_LANES_INLINE BP_IFMA512_INLINE
#define BP_LANES_FN BP_IFMA512
#include "backend/ifma/scalar52x8.inc"
#undef BP_LANES_FN
#undef BP_LANES_INLINE

}  // namespace bp::detail::ifma
