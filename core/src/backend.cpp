#include "bp/backend.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "msm_kernels.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

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

// mulx (BMI2) and adcx/adox (ADX): CPUID leaf 7, EBX bits 8 and 19.
bool cpu_has_bmi2_adx() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return ((ebx >> 8) & 1) != 0 && ((ebx >> 19) & 1) != 0;
#else
  return false;
#endif
}

struct CpuId {
  char vendor[13] = {};
  unsigned family = 0, model = 0;
};

CpuId cpu_id() {
  CpuId id;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid(0, eax, ebx, ecx, edx);
  std::memcpy(id.vendor, &ebx, 4);
  std::memcpy(id.vendor + 4, &edx, 4);
  std::memcpy(id.vendor + 8, &ecx, 4);
  __cpuid(1, eax, ebx, ecx, edx);
  const unsigned base_family = (eax >> 8) & 0xf;
  id.family = base_family == 0xf ? base_family + ((eax >> 20) & 0xff) : base_family;
  id.model = (eax >> 4) & 0xf;
  if (base_family == 0xf || base_family == 0x6) id.model |= ((eax >> 16) & 0xf) << 4;
#endif
  return id;
}

// AMD's Zen and Zen+ (family 17h below model 30h: EPYC 7001, Ryzen 1000 to 3000 APUs)
// execute each 256-bit AVX2 instruction as two 128-bit halves, so the four-way AVX2 field
// multiplication costs three portable ones rather than one: on such a CPU the portable
// backend is faster on every row of `bp bench` (measured with the backends' samples
// interleaved; docs/performance.md). Zen 2 and later have full-width units.
bool avx2_runs_at_half_width() {
  const CpuId id = cpu_id();
  return std::strcmp(id.vendor, "AuthenticAMD") == 0 && id.family == 0x17 && id.model < 0x30;
}

// A backend's kernels once its CPU check and msm_kernels_agree_with_portable pass, so a
// CPU or assembler fault falls back instead of making proofs that do not verify.
const detail::MsmKernels* checked(bool cpu_has, const detail::MsmKernels& kernels) {
  return cpu_has && detail::msm_kernels_agree_with_portable(kernels) ? &kernels : nullptr;
}

std::atomic<const detail::MsmKernels*>& ifma_kernels() {
  static std::atomic<const detail::MsmKernels*> kernels{checked(cpu_has_avx512ifma(), detail::ifma::kMsmKernels)};
  return kernels;
}

std::atomic<const detail::MsmKernels*>& mulx_kernels() {
  static std::atomic<const detail::MsmKernels*> kernels{checked(cpu_has_bmi2_adx(), detail::mulx::kMsmKernels)};
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
    case Backend::avx2: {
      static const bool has = cpu_has_avx2();
      return has;
    }
    case Backend::avx512ifma: return detail::ifma_msm_kernels() != nullptr;
    case Backend::mulx: return detail::mulx_msm_kernels() != nullptr;
  }
  return false;
}

Backend preferred_backend() {
  if (backend_supported(Backend::avx512ifma)) return Backend::avx512ifma;
  if (backend_supported(Backend::avx2) && !avx2_runs_at_half_width()) return Backend::avx2;
  if (backend_supported(Backend::mulx)) return Backend::mulx;
  return Backend::portable;
}

std::string backend_choice() {
  const CpuId id = cpu_id();
  char cpu[96];
  std::snprintf(cpu, sizeof cpu, "%s family %xh model %xh", id.vendor[0] ? id.vendor : "non-x86", id.family, id.model);
  const Backend preferred = preferred_backend();
  const bool full_width_avx2 = backend_supported(Backend::avx2) && !avx2_runs_at_half_width();
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

bool cpu_executes_ifma() {
  static const bool has = cpu_has_avx512ifma();
  return has;
}

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
