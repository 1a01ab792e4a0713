#include "backend/cpu_features.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define BP_X86_CPUID 1
#endif

namespace bp::detail {

namespace {

bool ask_avx2() {
#ifdef BP_X86_CPUID
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

bool ask_avx512ifma() {
#ifdef BP_X86_CPUID
  __builtin_cpu_init();
  return ask_avx2() && __builtin_cpu_supports("avx512ifma") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

// CPUID leaf 7, EBX bits 8 (BMI2) and 19 (ADX).
bool ask_bmi2_adx() {
#ifdef BP_X86_CPUID
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return ((ebx >> 8) & 1) != 0 && ((ebx >> 19) & 1) != 0;
#else
  return false;
#endif
}

}  // namespace

CpuId cpu_id() {
  CpuId id;
#ifdef BP_X86_CPUID
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

bool cpu_executes_avx2() {
  static const bool has = ask_avx2();
  return has;
}

bool cpu_executes_ifma() {
  static const bool has = ask_avx512ifma();
  return has;
}

bool cpu_executes_bmi2_adx() {
  static const bool has = ask_bmi2_adx();
  return has;
}

bool avx2_runs_at_half_width() {
  const CpuId id = cpu_id();
  return std::strcmp(id.vendor, "AuthenticAMD") == 0 && id.family == 0x17 && id.model < 0x30;
}

bool avx512_pairs_pay() {
  const CpuId id = cpu_id();
  return std::strcmp(id.vendor, "AuthenticAMD") == 0 && id.family >= 0x1a;
}

}  // namespace bp::detail
