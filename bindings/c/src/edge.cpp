// Errors and buffers of the C ABI.
#include "edge.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

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
                                       "unavailable"};
  if (kind < 0 || kind > BP_ERR_UNAVAILABLE) return "unknown";
  return kNames[kind];
}

void bp_bytes_free(uint8_t* bytes) { std::free(bytes); }

}  // extern "C"
