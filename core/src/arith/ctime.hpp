// Marks for the constant-time check (tests/ctime): under valgrind, secret bytes are made
// "undefined" so that any branch or memory index depending on them is reported.
// `declassify` marks a value that the protocol makes public (a message sent to the
// dealer), after which variable-time code may use it. Outside valgrind these are a few
// no-op instructions.
#pragma once

#include <cstddef>

#if defined(BP_HAVE_VALGRIND)
#include <valgrind/memcheck.h>
#endif

namespace bp::detail {

inline void declassify([[maybe_unused]] const void* p, [[maybe_unused]] size_t len) {
#if defined(BP_HAVE_VALGRIND)
  (void)VALGRIND_MAKE_MEM_DEFINED(p, len);
#endif
}

inline void classify([[maybe_unused]] const void* p, [[maybe_unused]] size_t len) {
#if defined(BP_HAVE_VALGRIND)
  (void)VALGRIND_MAKE_MEM_UNDEFINED(p, len);
#endif
}

}  // namespace bp::detail
