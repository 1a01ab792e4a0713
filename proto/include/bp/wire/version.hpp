// What a program of this release says it is (--version, the dealer's /v1/version and first
// log line): the release and commit, the wire version it speaks, the C ABI version its libbp
// carries, and the backend this CPU selected.
#pragma once

#include <string>
#include <string_view>

namespace bp::wire {

// The C ABI of this release's libbp (bindings/c/include/bp/bp.h's BP_ABI_MAJOR and
// BP_ABI_MINOR, which its build checks against these).
inline constexpr int kCAbiMajor = 0;
inline constexpr int kCAbiMinor = 8;

// "bp-dealer 0.1.0 (commit 1a2b3c4d5e6f), wire 1.7, C ABI 0.8, backend avx512ifma"
std::string version_line(std::string_view program);
// The same as one JSON object: {"version","commit","wire","c_abi","backend"}.
std::string version_json();

}  // namespace bp::wire
