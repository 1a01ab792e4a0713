#include "bp/backend.hpp"

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

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

Backend initial_backend() {
  if (const char* env = std::getenv("BP_BACKEND")) {
    const auto wanted = backend_from_name(env);
    if (wanted && backend_supported(*wanted)) return *wanted;
  }
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
    case Backend::avx512ifma: return false;
  }
  return false;
}

Backend active_backend() { return static_cast<Backend>(current().load(std::memory_order_relaxed)); }

void set_backend(Backend backend) {
  if (!backend_supported(backend))
    throw std::invalid_argument(std::string("field backend '") + backend_name(backend) + "' is not supported on this machine");
  current().store(static_cast<int>(backend), std::memory_order_relaxed);
}

}  // namespace bp
