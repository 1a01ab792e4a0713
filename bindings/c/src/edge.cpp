// Errors and buffers of the C ABI.
#include "edge.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <sodium.h>

#include "bp/random.hpp"

namespace bp::c_abi {

int fail(bp_error* err, int kind, const std::string& message, const std::vector<size_t>& blamed) {
  if (err == nullptr) return kind;
  err->kind = kind;
  // A session of up to 256 positions can blame more than blamed[] holds. The count then
  // leads the message, ahead of the list it carries (which 512 bytes may cut), so a full
  // array is never taken for the whole of the blame.
  const std::string text = blamed.size() <= BP_MAX_BLAMED
                               ? message
                               : std::to_string(blamed.size()) + " positions blamed, blamed[] holds the first " +
                                     std::to_string(BP_MAX_BLAMED) + ": " + message;
  const size_t len = std::min(text.size(), sizeof(err->message) - 1);
  std::memcpy(err->message, text.data(), len);
  err->message[len] = '\0';
  err->blamed_count = std::min<size_t>(blamed.size(), BP_MAX_BLAMED);
  for (size_t i = 0; i < err->blamed_count; ++i) err->blamed[i] = static_cast<uint32_t>(blamed[i]);
  return kind;
}

SecretWitness::~SecretWitness() {
  if (!values.empty()) sodium_memzero(values.data(), values.size() * sizeof values[0]);
  for (auto& b : blindings) b.wipe();
}

int SecretWitness::read(const uint64_t* values_in, const uint8_t* blindings_in, size_t count, bp_error* err) {
  values.assign(values_in, values_in + count);
  SystemRandom rng;
  for (size_t j = 0; j < count; ++j) {
    if (blindings_in == nullptr) {
      blindings.push_back(Scalar::random(rng));
      continue;
    }
    auto s = Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(blindings_in + 32 * j, 32));
    if (!s) return fail(err, BP_ERR_INVALID_ARGUMENT, "blinding " + std::to_string(j) + " is not a canonical scalar");
    blindings.push_back(*s);
    s->wipe();
  }
  return BP_OK;
}

int hand_out_proof(const std::vector<uint8_t>& proof_bytes, const std::vector<CompressedRistretto>& commitments,
                   uint8_t* commitments_out, uint8_t** proof, size_t* proof_len, bp_error* err) {
  auto* buffer = static_cast<uint8_t*>(std::malloc(proof_bytes.size()));
  if (buffer == nullptr) return fail(err, BP_ERR_INTERNAL, "out of memory");
  std::memcpy(buffer, proof_bytes.data(), proof_bytes.size());
  for (size_t j = 0; j < commitments.size(); ++j)
    std::memcpy(commitments_out + 32 * j, commitments[j].bytes.data(), 32);
  *proof = buffer;
  *proof_len = proof_bytes.size();
  return succeed(err);
}

int succeed(bp_error* err) {
  if (err != nullptr) {
    err->kind = BP_OK;
    err->message[0] = '\0';
    err->blamed_count = 0;
  }
  return BP_OK;
}

}  // namespace bp::c_abi

extern "C" {

int bp_abi_version(void) { return BP_ABI_MAJOR * 1000 + BP_ABI_MINOR; }

const char* bp_error_kind_name(int kind) {
  static const char* const kNames[] = {"ok",
                                       "transport",
                                       "timeout",
                                       "protocol",
                                       "abort",
                                       "malicious dealer",
                                       "refused",
                                       "invalid argument",
                                       "verification failed",
                                       "cancelled",
                                       "internal",
                                       "unavailable",
                                       "not allowed",
                                       "no such session",
                                       "over limit",
                                       "rate limited"};
  if (kind < 0 || kind > BP_ERR_RATE_LIMITED) return "unknown";
  return kNames[kind];
}

void bp_bytes_free(uint8_t* bytes) { std::free(bytes); }

}  // extern "C"
