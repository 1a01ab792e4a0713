// The boundary between C callers and the C++ library: errors into bp_error, exceptions
// caught before they cross, argument checks. Internal to libbp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "bp/bp.h"

namespace bp::c_abi {

// Fills *err (when given) and returns kind.
int fail(bp_error* err, int kind, const std::string& message, const std::vector<size_t>& blamed = {});

// Marks *err as no error and returns BP_OK.
int succeed(bp_error* err);

// Runs body (which returns a status) with every exception turned into BP_ERR_INTERNAL, so
// nothing unwinds into C.
template <class Body>
int guarded(bp_error* err, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(err, BP_ERR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(err, BP_ERR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(err, BP_ERR_INTERNAL, "internal error");
  }
}

// A caller's struct with a leading size field: at least the fields of version 0.1.
template <class T>
bool sized(const T* s) {
  return s != nullptr && s->size >= sizeof(T);
}

}  // namespace bp::c_abi
