// Session ids, the paths that carry them, and the check of a result's attestation.
#include "bp/wire/messages.hpp"

#include <sodium.h>

#include "bp/hex.hpp"
#include "bp/wire/auth.hpp"

namespace bp::wire {

bool valid_session_id(std::string_view id) {
  return id.size() == kSessionIdChars && id.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::string random_session_id() {
  uint8_t raw[kSessionIdChars / 2];
  randombytes_buf(raw, sizeof raw);
  return to_hex(raw);
}

namespace {
constexpr std::string_view kSessionPathPrefix = "/v1/session/";
}

std::string session_path(std::string_view id) { return std::string(kSessionPathPrefix) + std::string(id); }

std::optional<std::string> session_id_in_path(std::string_view target) {
  // A prefix before it is allowed (an ingress may mount the dealer under a path).
  const auto at = target.rfind(kSessionPathPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  const auto id = target.substr(at + kSessionPathPrefix.size());
  if (!valid_session_id(id)) return std::nullopt;
  return std::string(id);
}

bool attestation_valid(const ResultMsg& message) {
  if (!message.attestation) return false;
  const auto& a = *message.attestation;
  return verify_signature(a.dealer_key, result_statement(a.dealer_key, a.session_id, message.result), a.signature);
}

bool attestation_valid(const R1CSResultMsg& message) {
  if (!message.attestation) return false;
  const auto& a = *message.attestation;
  return verify_signature(a.dealer_key, r1cs_result_statement(a.dealer_key, a.session_id, message), a.signature);
}

}  // namespace bp::wire
