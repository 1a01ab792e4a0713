#include "bp/backend.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "backend/cpu_features.hpp"
#include "msm/msm_kernels.hpp"

namespace bp {

namespace {

// A backend's kernels once its CPU check and msm_kernels_agree_with_portable pass, so a
// CPU or assembler fault falls back instead of making proofs that do not verify.
const detail::MsmKernels* checked(bool cpu_has, const detail::MsmKernels& kernels) {
  return cpu_has && detail::msm_kernels_agree_with_portable(kernels) ? &kernels : nullptr;
}

// Where 512-bit instructions run at full width, Straus adds two points in the
// instructions of one (msm_pairs.inc); elsewhere it keeps four lanes.
std::atomic<const detail::MsmKernels*>& ifma_kernels() {
  static std::atomic<const detail::MsmKernels*> kernels{
      checked(detail::cpu_executes_ifma(),
              detail::avx512_pairs_pay() ? detail::ifma::kMsmKernelsPaired : detail::ifma::kMsmKernels)};
  return kernels;
}

std::atomic<const detail::MsmKernels*>& mulx_kernels() {
  static std::atomic<const detail::MsmKernels*> kernels{
      checked(detail::cpu_executes_bmi2_adx(), detail::mulx::kMsmKernels)};
  return kernels;
}

Backend initial_backend() {
  if (const char* env = std::getenv("BP_BACKEND")) {
    const auto wanted = backend_from_name(env);
    if (wanted && backend_supported(*wanted)) return *wanted;
  }
  return preferred_backend();
}

std::atomic<int>& current() {
  static std::atomic<int> backend{static_cast<int>(initial_backend())};
  return backend;
}

}  // namespace

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::portable: return "portable";
    case Backend::avx2: return "avx2";
    case Backend::avx512ifma: return "avx512ifma";
    case Backend::mulx: return "mulx";
  }
  return "unknown";
}

std::optional<Backend> backend_from_name(std::string_view name) {
  for (Backend b : kBackends)
    if (name == backend_name(b)) return b;
  return std::nullopt;
}

bool backend_supported(Backend backend) {
  switch (backend) {
    case Backend::portable: return true;
    case Backend::avx2: return detail::cpu_executes_avx2();
    case Backend::avx512ifma: return detail::ifma_msm_kernels() != nullptr;
    case Backend::mulx: return detail::mulx_msm_kernels() != nullptr;
  }
  return false;
}

Backend preferred_backend() {
  if (backend_supported(Backend::avx512ifma)) return Backend::avx512ifma;
  if (backend_supported(Backend::avx2) && !detail::avx2_runs_at_half_width()) return Backend::avx2;
  if (backend_supported(Backend::mulx)) return Backend::mulx;
  return Backend::portable;
}

std::string backend_choice() {
  const detail::CpuId id = detail::cpu_id();
  char cpu[96];
  std::snprintf(cpu, sizeof cpu, "%s family %xh model %xh", id.vendor[0] ? id.vendor : "non-x86", id.family, id.model);
  const Backend preferred = preferred_backend();
  const bool full_width_avx2 = backend_supported(Backend::avx2) && !detail::avx2_runs_at_half_width();
  const char* scalar_choice = backend_supported(Backend::mulx) ? "BMI2 and ADX" : "no BMI2 and ADX";
  std::string why =
      backend_supported(Backend::avx512ifma) ? "AVX-512 IFMA and VL, and its kernels agree with portable"
      : full_width_avx2                      ? "AVX2 without AVX-512 IFMA"
      : !backend_supported(Backend::avx2)
          ? std::string("no AVX2; ") + scalar_choice
          : std::string("AVX2 runs at half width here (Zen/Zen+), so a scalar backend is faster; ") + scalar_choice;
  std::string out = std::string(cpu) + ": " + backend_name(preferred) + " (" + why + ")";
  if (active_backend() != preferred)
    out += "; BP_BACKEND or set_backend chose " + std::string(backend_name(active_backend()));
  return out;
}

Backend active_backend() { return static_cast<Backend>(current().load(std::memory_order_relaxed)); }

void set_backend(Backend backend) {
  if (!backend_supported(backend))
    throw std::invalid_argument(std::string("field backend '") + backend_name(backend) +
                                "' is not supported on this machine");
  current().store(static_cast<int>(backend), std::memory_order_relaxed);
}

namespace detail {

const MsmKernels* ifma_msm_kernels() { return ifma_kernels().load(std::memory_order_acquire); }

void use_ifma_msm_kernels(const MsmKernels* kernels) { ifma_kernels().store(kernels, std::memory_order_release); }

const MsmKernels* mulx_msm_kernels() { return mulx_kernels().load(std::memory_order_acquire); }

void use_mulx_msm_kernels(const MsmKernels* kernels) { mulx_kernels().store(kernels, std::memory_order_release); }

const MsmKernels* active_msm_kernels() {
  switch (active_backend()) {
    case Backend::portable: return nullptr;
    case Backend::avx2: return &avx2::kMsmKernels;
    case Backend::avx512ifma: return ifma_msm_kernels();
    case Backend::mulx: return mulx_msm_kernels();
  }
  return nullptr;
}

}  // namespace detail

}  // namespace bp
