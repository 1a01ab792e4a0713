// The multiscalar multiplications of a vectorised backend, as one table of entry points:
// the dispatching functions (msm_ct.cpp, msm_vartime.cpp, precomputed.cpp) call through
// the active backend's table and run the portable code when there is none. Each table
// comes from one instantiation of msm_four_lanes.inc.
#pragma once

#include <span>

#include "bp/precomputed.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp::detail {

struct MsmKernels {
  // Variable time, public scalars (fixed points through their tables, then the others).
  RistrettoPoint (*straus_mixed_vartime)(std::span<const Scalar> fixed_scalars,
                                         std::span<const VartimeBaseTable* const> fixed_tables,
                                         std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
  RistrettoPoint (*pippenger_mixed_vartime)(std::span<const Scalar> fixed_scalars,
                                            std::span<const VartimeBaseTable* const> fixed_tables,
                                            std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
  // Fixed points only, as shifted tables: one bucket pass.
  RistrettoPoint (*shifted_buckets_vartime)(std::span<const Scalar> scalars,
                                            std::span<const ShiftedBaseTable* const> tables);
  // Constant time, secret scalars.
  RistrettoPoint (*ct_with_tables)(std::span<const Scalar> scalars, std::span<const CtBaseTable* const> tables);
  RistrettoPoint (*ct_with_points)(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);
  RistrettoPoint (*ct_with_combs)(std::span<const Scalar> scalars, std::span<const CtCombTable* const> combs);
};

// Whether every entry point gives the portable arithmetic's result on a small known
// instance (fixed tables, Pippenger, shifted tables, the three constant-time forms). Checked
// once before hardware IFMA kernels are first used, so a CPU or compiler fault there falls
// back to AVX2 instead of producing proofs that do not verify.
bool msm_kernels_agree_with_portable(const MsmKernels& kernels);

// The active backend's kernels; null for the portable backend.
const MsmKernels* active_msm_kernels();

// The AVX-512 IFMA kernels: the hardware ones when the CPU has IFMA (and they pass
// msm_kernels_agree_with_portable), otherwise none
// (and the backend is unsupported) until a test installs the same code compiled over
// emulated instructions (ifma/v4_emulated.hpp), so that it is checked on every machine.
const MsmKernels* ifma_msm_kernels();
void use_ifma_msm_kernels(const MsmKernels* kernels);
// (Which instructions the CPU itself executes: backend/cpu_features.hpp.)

// The mulx kernels when the CPU reports BMI2 and ADX (and they pass
// msm_kernels_agree_with_portable), otherwise none. Valgrind runs both instructions but
// hides ADX from CPUID, so the constant-time test installs them itself.
const MsmKernels* mulx_msm_kernels();
void use_mulx_msm_kernels(const MsmKernels* kernels);

namespace avx2 {
extern const MsmKernels kMsmKernels;
}
namespace mulx {
extern const MsmKernels kMsmKernels;
}
namespace ifma {
extern const MsmKernels kMsmKernels;
// The same with Straus on pairs of points (msm_pairs.inc), chosen where a 512-bit
// instruction costs what a 256-bit one does (cpu_features.hpp: avx512_pairs_pay).
extern const MsmKernels kMsmKernelsPaired;
}  // namespace ifma

}  // namespace bp::detail
