#include "bp/backend.hpp"

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "msm_kernels.hpp"

namespace bp {

namespace {

bool cpu_has_avx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

// The IFMA kernels use 256-bit AVX-512 instructions (VL) besides the multiply-adds.
bool cpu_has_avx512ifma() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return cpu_has_avx2() && __builtin_cpu_supports("avx512ifma") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

std::atomic<const detail::MsmKernels*>& ifma_kernels() {
  static std::atomic<const detail::MsmKernels*> kernels{
      cpu_has_avx512ifma() && detail::msm_kernels_agree_with_portable(detail::ifma::kMsmKernels)
          ? &detail::ifma::kMsmKernels
          : nullptr};
  return kernels;
}

Backend initial_backend() {
  if (const char* env = std::getenv("BP_BACKEND")) {
    const auto wanted = backend_from_name(env);
    if (wanted && backend_supported(*wanted)) return *wanted;
  }
  if (backend_supported(Backend::avx512ifma)) return Backend::avx512ifma;
  return backend_supported(Backend::avx2) ? Backend::avx2 : Backend::portable;
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
  }
  return "unknown";
}

std::optional<Backend> backend_from_name(std::string_view name) {
  for (Backend b : {Backend::portable, Backend::avx2, Backend::avx512ifma})
    if (name == backend_name(b)) return b;
  return std::nullopt;
}

bool backend_supported(Backend backend) {
  switch (backend) {
    case Backend::portable: return true;
    case Backend::avx2: {
      static const bool has = cpu_has_avx2();
      return has;
    }
    case Backend::avx512ifma: return detail::ifma_msm_kernels() != nullptr;
  }
  return false;
}

Backend active_backend() { return static_cast<Backend>(current().load(std::memory_order_relaxed)); }

void set_backend(Backend backend) {
  if (!backend_supported(backend))
    throw std::invalid_argument(std::string("field backend '") + backend_name(backend) + "' is not supported on this machine");
  current().store(static_cast<int>(backend), std::memory_order_relaxed);
}

namespace detail {

const MsmKernels* ifma_msm_kernels() { return ifma_kernels().load(std::memory_order_acquire); }

void use_ifma_msm_kernels(const MsmKernels* kernels) { ifma_kernels().store(kernels, std::memory_order_release); }

const MsmKernels* active_msm_kernels() {
  switch (active_backend()) {
    case Backend::portable: return nullptr;
    case Backend::avx2: return &avx2::kMsmKernels;
    case Backend::avx512ifma: return ifma_msm_kernels();
  }
  return nullptr;
}

}  // namespace detail

}  // namespace bp
