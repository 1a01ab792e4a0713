// The IFMA kernels over emulated instructions, and a guard that makes the avx512ifma
// backend available for the length of a test: the hardware kernels when the CPU has
// IFMA, these otherwise.
#pragma once

#include "msm/msm_kernels.hpp"

namespace bp::detail::ifma_emulated {
extern const MsmKernels kMsmKernels;
extern const MsmKernels kMsmKernelsPaired;  // Straus on pairs of points (msm_pairs.inc)
}  // namespace bp::detail::ifma_emulated

namespace bp::test {

class IfmaAvailable {
 public:
  IfmaAvailable() : installed_(detail::ifma_msm_kernels()) {
    if (installed_ == nullptr) detail::use_ifma_msm_kernels(&detail::ifma_emulated::kMsmKernels);
  }
  ~IfmaAvailable() { detail::use_ifma_msm_kernels(installed_); }
  IfmaAvailable(const IfmaAvailable&) = delete;
  IfmaAvailable& operator=(const IfmaAvailable&) = delete;

  bool emulated() const { return installed_ == nullptr; }

 private:
  const detail::MsmKernels* installed_;
};

}  // namespace bp::test
