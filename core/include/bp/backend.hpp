// Which field arithmetic the curve operations run on. The choice is made once, at first
// use, from the CPU (or the BP_BACKEND environment variable); every backend computes
// exactly the same results, so the choice changes speed only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace bp {

enum class Backend {
  portable,    // radix 2^51, five 64-bit limbs, any 64-bit CPU
  avx2,        // radix 2^25.5, four elements per AVX2 register (x86-64 with AVX2)
  avx512ifma,  // radix 2^51, four elements per register, 52-bit multiply-adds (AVX-512 IFMA + VL)
  mulx,        // radix 2^64, four 64-bit limbs, mulx with two carry chains (x86-64 with BMI2 + ADX)
};

// Every backend, in the order tables and tests list them.
inline constexpr Backend kBackends[] = {Backend::portable, Backend::avx2, Backend::avx512ifma, Backend::mulx};

const char* backend_name(Backend backend);
std::optional<Backend> backend_from_name(std::string_view name);

// Compiled in and runnable on this CPU.
bool backend_supported(Backend backend);

// The fastest backend on this CPU, decided per CPU family: avx512ifma where the CPU has
// IFMA and VL (and the kernels pass their start check); else avx2, except on AMD Zen and
// Zen+ (family 17h, models below 30h), whose split 256-bit units make the scalar
// multiplier faster on every operation; else mulx where the CPU has BMI2 and ADX (and
// its kernels pass the same check); else portable. `bp bench` checks the choice with
// every supported backend's samples interleaved.
Backend preferred_backend();

// The CPU, the preferred backend and why, and the active one if it differs, in one line.
std::string backend_choice();

// The backend in use: BP_BACKEND (portable | avx2 | avx512ifma | mulx) when set and supported,
// otherwise preferred_backend().
Backend active_backend();

// Switches backend for the whole process (tests and benchmarks compare backends this
// way). Throws std::invalid_argument when the backend is not supported here. Not meant to
// be called while another thread is computing.
void set_backend(Backend backend);

}  // namespace bp
