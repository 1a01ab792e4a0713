// What this CPU executes, asked once: the backends below the multiscalar multiplication
// (field and point code) and the choice of backend above it (msm/backend.cpp) both read it,
// so the answer lives here, under both.
#pragma once

namespace bp::detail {

struct CpuId {
  char vendor[13] = {};
  unsigned family = 0, model = 0;
};
CpuId cpu_id();

bool cpu_executes_avx2();
// AVX-512 IFMA and VL (the IFMA code uses 256-bit AVX-512 instructions besides the
// multiply-adds), whatever kernels a test installed: code that runs the instructions
// directly (decoding's exponentiations) asks this, never backend_supported, which emulated
// kernels make true.
bool cpu_executes_ifma();
// mulx (BMI2) and adcx/adox (ADX).
bool cpu_executes_bmi2_adx();

// AMD's Zen and Zen+ (family 17h below model 30h: EPYC 7001, Ryzen 1000 to 3000 APUs)
// execute each 256-bit AVX2 instruction as two 128-bit halves, so the four-way AVX2 field
// multiplication costs three portable ones rather than one: on such a CPU the portable
// backend is faster on every row of `bp bench` (measured with the backends' samples
// interleaved; docs/performance.md). Zen 2 and later have full-width units.
bool avx2_runs_at_half_width();

// Whether packing two four-lane point operations into one 512-bit register is known to
// pay: AMD's Zen 5 and later (family 1Ah on), whose units are 512 bits wide (measured:
// docs/performance.md). Zen 4 (family 19h) executes each 512-bit instruction as two
// 256-bit halves and gains nothing; Intel's IFMA parts are not measured here, so they
// keep four lanes until someone does.
bool avx512_pairs_pay();

}  // namespace bp::detail
