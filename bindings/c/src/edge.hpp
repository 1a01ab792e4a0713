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
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp::c_abi {

// Fills *err (when given) and returns kind.
int fail(bp_error* err, int kind, const std::string& message, const std::vector<size_t>& blamed = {});

// Marks *err as no error and returns BP_OK.
int succeed(bp_error* err);

// The caller's values and blindings (32 bytes each, canonical; NULL: random ones), copied in
// and wiped when this goes.
struct SecretWitness {
  std::vector<uint64_t> values;
  std::vector<Scalar> blindings;
  SecretWitness() = default;
  SecretWitness(const SecretWitness&) = delete;
  SecretWitness& operator=(const SecretWitness&) = delete;
  ~SecretWitness();
  // BP_OK, or BP_ERR_INVALID_ARGUMENT naming the blinding that is not canonical.
  int read(const uint64_t* values_in, const uint8_t* blindings_in, size_t count, bp_error* err);
};

// Hands a proof to the caller: its bytes in a buffer the caller frees with bp_bytes_free
// (*proof, *proof_len), and the commitments, 32 bytes each, into commitments_out.
int hand_out_proof(const std::vector<uint8_t>& proof_bytes, const std::vector<CompressedRistretto>& commitments,
                   uint8_t* commitments_out, uint8_t** proof, size_t* proof_len, bp_error* err);

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
